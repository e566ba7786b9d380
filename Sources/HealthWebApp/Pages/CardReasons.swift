import SmartHealthCards

/// Verification findings in plain words, for the Health cards page. The verifier decides (rules
/// stay in SmartHealthCards); this only says what its finding codes mean to a person.
enum CardReasons {
    /// A sentence for a finding's code.
    static func sentence(_ code: SHCFindingCode) -> String {
        let raw = code.rawValue
        switch code {
        case .revoked: return "The issuer has revoked this card."
        case .issuerUntrusted: return "The issuer is not one of the trusted issuers."
        default: break
        }
        switch raw {
        case "jws.signature.invalid":
            return "The signature does not match: the card was changed after it was signed, or was not signed with its issuer's key."
        case "key.issuer-unknown": return "The issuer's keys are not known here, so the signature cannot be checked."
        case "key.resolver-failed": return "The issuer's keys could not be fetched or read, so the signature cannot be checked."
        case "key.not-found": return "The issuer does not publish the key this card says it was signed with."
        case "claims.exp.expired": return "The card has expired."
        case "revocation.crl-unavailable": return "The issuer's list of revoked cards could not be obtained, so the card cannot be accepted."
        default: break
        }
        if raw.hasPrefix("jws.") || raw.hasPrefix("payload.") { return "The card is damaged or is not in the SMART Health Card format." }
        if raw.hasPrefix("claims.") { return "The card's contents do not follow the SMART Health Card rules." }
        if raw.hasPrefix("bundle.") { return "The health record inside the card does not follow the SMART Health Card rules." }
        if raw.hasPrefix("key.") { return "The issuer's signing key is not acceptable." }
        if raw.hasPrefix("revocation.") { return "The issuer's list of revoked cards is not usable, so the card cannot be accepted." }
        return "The card did not pass a check."
    }

    /// A reason as the importer or the verifier wrote it (`error [code] (rule N): message`), in
    /// plain words, with the technical text kept beside it.
    static func plain(_ reason: String) -> (text: String, detail: String) {
        guard let open = reason.firstIndex(of: "["), let close = reason[open...].firstIndex(of: "]"),
              let code = SHCFindingCode(rawValue: String(reason[reason.index(after: open)..<close])) else {
            if reason == "the issuer is not trusted" { return (sentence(.issuerUntrusted), reason) }
            return (reason.prefix(1).uppercased() + reason.dropFirst() + (reason.hasSuffix(".") ? "" : "."), reason)
        }
        return (sentence(code), reason)
    }

    /// Reasons in plain words without repeats, each with its technical details.
    static func plain(_ reasons: [String]) -> [[String: String]] {
        var seen: Set<String> = []
        var rows: [[String: String]] = []
        for reason in reasons {
            let (text, detail) = plain(reason)
            if seen.insert(text).inserted {
                rows.append(["text": text, "detail": detail])
            } else if let last = rows.lastIndex(where: { $0["text"] == text }) {
                rows[last]["detail", default: ""] += "; " + detail
            }
        }
        return rows
    }
}
