import CommonSupport
import Crypto
import ExactJSON
import Foundation

/// Verifies SMART Health Cards in the checklist's order (rules 31-37): JWS syntax and header,
/// signature format, raw DEFLATE payload, claims, the issuer's key (from that issuer's JWKS only),
/// the ES256 signature, expiry, revocation, trust, then the FHIR bundle.
///
/// Verification never throws: every problem is a finding in the report. Time is a parameter
/// (`now`); nothing reads the clock.
///
/// Decisions where the spec leaves room:
/// - Revocation (rule 42): a listed `rid.timestamp` revokes a card when `nbf < timestamp`, compared
///   as numbers without truncating the fractional `nbf` (the legacy example 03 is therefore not
///   revoked, the current one is). A key with `crlVersion` whose CRL cannot be obtained is an error
///   (fail closed). The legacy `hash-fhir` method (rule 44) is evaluated too.
/// - `x5c` (rules 9-10): no PKI trust framework is supported, so the chain is not validated; a leaf
///   whose key differs from the JWK is an error, an expired leaf or a SAN that does not name `iss`
///   is a warning.
/// - Trust (rules 36, 55): an issuer outside the trust policy is a warning and
///   ``SHCVerificationReport/issuerTrusted`` is false; accept cards with
///   ``SHCVerificationReport/isAccepted``.
/// - `nbf` in the future beyond ``SHCLimits/clockSkew`` is a warning; `nbf` above 10^11 is read as
///   milliseconds (an error); `exp` before `now` is an error with no skew (rule 17's SHALL).
/// - Deprecated chunked QR input is a warning, not an error (readers should accept chunks).
public struct SHCVerifier: Sendable {
    /// Where issuers' keys and revocation lists come from.
    public let resolver: any IssuerKeyResolver
    /// Which issuers are trusted; nil to leave trust undecided (``SHCVerificationReport/issuerTrusted`` nil).
    public let trust: SHCTrustPolicy?
    /// The time against which `nbf`, `exp` and certificate validity are judged.
    public let now: Date
    /// Resource limits and clock skew.
    public let limits: SHCLimits
    private let revocationCache = SHCRevocationCache()

    /// Creates a verifier.
    public init(resolver: any IssuerKeyResolver, trust: SHCTrustPolicy? = nil, now: Date, limits: SHCLimits = .default) {
        self.resolver = resolver
        self.trust = trust
        self.now = now
        self.limits = limits
    }

    /// Verifies a card given as compact JWS text.
    public func verify(_ jws: String) async -> SHCVerificationReport {
        await verify(utf8: Array(jws.utf8))
    }

    /// Verifies a card read by ``SHCInput``, adding input-level findings (deprecated chunking).
    public func verify(_ card: SHCInput.Card) async -> SHCVerificationReport {
        var report = await verify(card.jws)
        if card.chunkCount > 1 {
            report.add(.qrChunked, "the card was split into \(card.chunkCount) QR chunks; chunking is deprecated since spec 1.3.0")
        }
        return report
    }

    /// Verifies a card given as the UTF-8 bytes of its compact JWS.
    public func verify(utf8 input: [UInt8]) async -> SHCVerificationReport {
        var report = SHCVerificationReport()
        guard input.count <= limits.maxJWSLength else {
            report.add(.jwsTooLarge, "the JWS has \(input.count) characters, more than the limit of \(limits.maxJWSLength)")
            return report
        }
        guard let jws = parseJWS(input, into: &report) else { return report }

        // Rule 11: header.
        guard let headerJSON = try? limits.parseJSON(jws.header),
              case .object = headerJSON else {
            report.add(.headerInvalid, "the JWS header is not a JSON object")
            return report
        }
        let header = SHCJWSHeader(json: headerJSON)
        report.header = header
        if header.alg != "ES256" {
            report.add(.headerAlg, header.alg.map { "header alg is \"\($0)\", expected \"ES256\"" } ?? "header has no alg; \"ES256\" is required")
        }
        if header.zip != "DEF" {
            report.add(.headerZip, header.zip.map { "header zip is \"\($0)\", expected \"DEF\"" } ?? "header has no zip; \"DEF\" is required")
        }
        if header.kid == nil {
            report.add(.headerKid, headerJSON["kid"] == nil ? "header has no kid" : "header kid is not a string")
        }
        if headerJSON["crit"] != nil {
            report.add(.headerCrit, "header lists crit parameters, which this verifier does not support")
        }

        // Rule 12: signature format.
        var signature: P256.Signing.ECDSASignature?
        if jws.signature.count == 64 {
            signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature)
        } else {
            let looksDER = jws.signature.first == 0x30 && jws.signature.count >= 8 && jws.signature.count <= 72
            report.add(.signatureFormat, looksDER
                ? "the signature is \(jws.signature.count) bytes of ASN.1 DER; JWS ES256 signatures are the 64-byte r‖s"
                : "the signature is \(jws.signature.count) bytes; ES256 needs exactly 64 (r‖s)")
        }

        // Rule 14: raw DEFLATE payload.
        guard let payloadBytes = inflatePayload(jws.payload, into: &report) else { return report }
        let payload: JSONTape
        do {
            payload = try limits.parseJSONTape(payloadBytes)
        } catch {
            report.add(.payloadJSON, "the inflated payload is not JSON (\(error))")
            return report
        }
        guard payload.kind(0) == .object else {
            report.add(.payloadJSON, "the payload is not a JSON object")
            return report
        }
        report.payloadTape = payload
        if payload.hasWhitespace {
            report.add(.payloadNotMinified, "the payload JSON is not minified")
        }

        // Rules 15-21: claims.
        var claims = SHCClaims()
        let iss = payload.memberValue(of: 0, named: "iss")
        let issuer = checkIssuer(payload, iss, into: &report)
        claims.iss = payload.stringValue(at: iss)
        checkTimes(payload, claims: &claims, into: &report)
        payload.forEachMember(of: 0) { key, _ in
            if !(payload.stringEquals(key, "iss") || payload.stringEquals(key, "nbf") || payload.stringEquals(key, "exp")
                 || payload.stringEquals(key, "vc")) {
                report.add(.claimsUnexpected, "unexpected top-level claim \"\(payload.string(at: key))\"")
            }
        }
        let bundle = checkCredential(payload, payload.memberValue(of: 0, named: "vc"), claims: &claims, into: &report)
        report.claims = claims
        report.bundleIndex = bundle

        // Rule 33: the key, from this issuer's JWKS only; then the signature.
        var key: SHCJWK?
        if let issuer, let kid = header.kid {
            key = await findKey(issuer: issuer, kid: kid, into: &report)
        }
        if let key {
            for problem in key.problems { report.add(problem) }
            if let publicKey = key.publicKey, let signature {
                report.signatureValid = publicKey.isValidSignature(signature, for: jws.signingInput)
                if !report.signatureValid {
                    report.add(.signatureInvalid, "the ES256 signature does not verify with key \(key.kid ?? "")")
                }
            }
            if let leaf = key.x5cLeaf, let issuer {
                if now < leaf.notBefore || now > leaf.notAfter {
                    report.add(.x5cValidity,
                               "the x5c leaf certificate of key \(key.kid ?? "") is valid from "
                                   + "\(ISODateText.string(secondsSince1970: leaf.notBefore.timeIntervalSince1970)) to "
                                   + "\(ISODateText.string(secondsSince1970: leaf.notAfter.timeIntervalSince1970)), not now; "
                                   + "without a configured PKI trust framework this is a warning")
                }
                if !leaf.uriSubjectAlternativeNames.contains(issuer) {
                    report.add(.x5cSAN, "no uniformResourceIdentifier SAN of the x5c leaf certificate equals iss")
                }
            }
            // Rules 35 and 42-43: revocation.
            if let issuer, let kid = header.kid, let version = key.crlVersion {
                await checkRevocation(issuer: issuer, kid: kid, version: version, claims: claims, into: &report)
            }
        }

        // Rules 36 and 55: trust.
        if let trust {
            let decision = claims.iss.map { trust.evaluate(issuer: $0) }
            report.issuerTrusted = decision?.trusted ?? false
            report.issuerName = decision?.name
            if decision?.trusted != true {
                report.add(.issuerUntrusted, claims.iss.map { "the issuer \($0) is not trusted by the configured trust policy" }
                    ?? "the card names no issuer to trust")
            }
        }

        // Rules 20 and 23-30: the bundle.
        if let bundle {
            var checker = SHCBundleChecker(tape: payload, rootPath: "vc.credentialSubject.fhirBundle")
            checker.check(bundle)
            for finding in checker.findings { report.add(finding) }
        }
        return report
    }

    // MARK: - Steps

    /// Rule 13: surrounding characters, padding and segment syntax.
    private func parseJWS(_ input: [UInt8], into report: inout SHCVerificationReport) -> CompactJWS? {
        var text = input
        let trimmed = SHCInput.trimmedRange(of: input)
        if trimmed != input.indices {
            report.add(.jwsTrailingCharacters, "the JWS has \(input.count - trimmed.count) whitespace or byte-order-mark bytes around it")
            text = Array(input[trimmed])
        }
        if text.withUnsafeBufferPointer({ buffer in
            buffer.baseAddress.map { memchr($0, Int32(UInt8(ascii: "=")), buffer.count) != nil } ?? false
        }) {
            let stripped = SHCVerifier.strippingSegmentPadding(text)
            if !stripped.contains(UInt8(ascii: "=")) {
                report.add(.jwsPadding, "the JWS segments carry base64 '=' padding; base64url without padding is required")
                text = stripped
            }
        }
        do {
            return try CompactJWS(text)
        } catch {
            let reason: String
            switch error {
            case .segmentCount(let count): reason = "has \(count) segments, expected 3"
            case .emptySegment(let segment): reason = "has an empty \(["header", "payload", "signature"][segment]) segment"
            case .invalidCharacter(let offset): reason = "has a character outside base64url at offset \(offset)"
            case .padding(let offset): reason = "has a '=' inside a segment at offset \(offset)"
            case .invalidLength(let segment): reason = "has a \(["header", "payload", "signature"][segment]) segment of impossible base64url length"
            case .nonCanonical(let segment):
                reason = "has a \(["header", "payload", "signature"][segment]) segment whose last character carries stray bits (not canonical base64url)"
            }
            report.add(.jwsFormat, "the JWS \(reason)")
            return nil
        }
    }

    /// Removes `=` at the end of each segment.
    private static func strippingSegmentPadding(_ text: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        for (offset, byte) in text.enumerated() {
            if byte == UInt8(ascii: "=") {
                var next = offset + 1
                while next < text.count, text[next] == UInt8(ascii: "=") { next += 1 }
                if next == text.count || text[next] == UInt8(ascii: ".") { continue }
            }
            output.append(byte)
        }
        return output
    }

    /// Rule 14: inflate with windowBits −15 and a size cap; diagnose wrapped or plain payloads.
    private func inflatePayload(_ compressed: [UInt8], into report: inout SHCVerificationReport) -> [UInt8]? {
        do {
            return try RawDeflate.inflate(compressed, limit: limits.maxInflatedBytes)
        } catch {
            if case .tooLarge(let limit) = error {
                report.add(.payloadTooLarge, "the payload inflates to more than \(limit) bytes")
                return nil
            }
            if compressed.count >= 2, compressed[0] == 0x1F, compressed[1] == 0x8B {
                report.add(.payloadGzipWrapped, "the payload is gzip-wrapped; raw DEFLATE (RFC 1951) is required")
            } else if compressed.count >= 2, compressed[0] & 0x0F == 8, compressed[0] >> 4 <= 7,
                      (UInt16(compressed[0]) << 8 | UInt16(compressed[1])) % 31 == 0 {
                report.add(.payloadZlibWrapped, "the payload is zlib-wrapped; raw DEFLATE (RFC 1951) without a zlib header is required")
            } else if let first = compressed.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }),
                      first == UInt8(ascii: "{") {
                report.add(.payloadNotCompressed, "the payload is not compressed; raw DEFLATE is required")
            } else {
                let reason = switch error {
                case .truncated: "the DEFLATE stream is truncated"
                case .trailingData: "bytes follow the end of the DEFLATE stream"
                default: "the payload is not a valid raw DEFLATE stream"
                }
                report.add(.payloadInflate, reason)
            }
            return nil
        }
    }

    /// Rules 6 and 15. Returns the issuer URL when it may be used to look up keys.
    private func checkIssuer(_ payload: JSONTape, _ value: Int?, into report: inout SHCVerificationReport) -> String? {
        guard let iss = payload.stringValue(at: value) else {
            report.add(.issMissing, value == nil ? "the payload has no iss" : "iss is not a string")
            return nil
        }
        var usable = true
        if !SHCVerifier.hasHTTPSScheme(iss) {
            report.add(.issScheme, "iss \(iss) does not use the https scheme")
            usable = false
        }
        if iss.utf8.last == UInt8(ascii: "/") {
            report.add(.issTrailingSlash, "iss \(iss) ends with '/'")
            usable = false
        }
        if usable, !SHCVerifier.isWellFormedHTTPSURL(iss) {
            report.add(.issInvalid, "iss is not an absolute https URL with a host and without query or fragment")
            usable = false
        }
        return usable ? iss : nil
    }

    /// Whether `text` starts with `https://` (scheme compared case-insensitively).
    static func hasHTTPSScheme(_ text: String) -> Bool {
        let scheme: StaticString = "https://"
        var index = 0
        for byte in text.utf8.prefix(scheme.utf8CodeUnitCount) {
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
            if lower != scheme.utf8Start[index] { return false }
            index += 1
        }
        return index == scheme.utf8CodeUnitCount
    }

    /// `https://host[:port][/path]` in printable ASCII, without user info, query or fragment.
    static func isWellFormedHTTPSURL(_ text: String) -> Bool {
        guard hasHTTPSScheme(text) else { return false }
        var inAuthority = true
        var authorityLength = 0
        for byte in text.utf8.dropFirst(8) {
            if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\\") {
                return false
            }
            if inAuthority {
                if byte == UInt8(ascii: "/") {
                    inAuthority = false
                    continue
                }
                let isHostCharacter = Base64URL.isAlphabet(byte) && byte != UInt8(ascii: "_")
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
                guard isHostCharacter else { return false }
                authorityLength += 1
            }
        }
        return authorityLength > 0
    }

    /// Rules 16, 17 and 34.
    private func checkTimes(_ payload: JSONTape, claims: inout SHCClaims, into report: inout SHCVerificationReport) {
        let nowSeconds = now.timeIntervalSince1970
        if let nbfIndex = payload.memberValue(of: 0, named: "nbf") {
            if payload.kind(nbfIndex) == .number, let nbf = Double(payload.numberText(at: nbfIndex)) {
                claims.nbf = nbf
                if nbf > 100_000_000_000 {
                    report.add(.nbfMilliseconds,
                               "nbf \(payload.numberText(at: nbfIndex)) looks like milliseconds "
                                   + "(as milliseconds it is \(ISODateText.string(secondsSince1970: nbf / 1000))); NumericDate is in seconds")
                } else if nbf > nowSeconds + limits.clockSkew {
                    report.add(.nbfFuture,
                               "the card's issue time (nbf) \(ISODateText.string(secondsSince1970: nbf)) is in the future; "
                                   + "it is now \(ISODateText.string(secondsSince1970: nowSeconds))")
                }
            } else {
                report.add(.nbfType, "nbf is not a JSON number")
            }
        } else {
            report.add(.nbfMissing, "the payload has no nbf")
        }
        if let expIndex = payload.memberValue(of: 0, named: "exp") {
            if payload.kind(expIndex) == .number, let exp = Double(payload.numberText(at: expIndex)) {
                claims.exp = exp
                if exp < nowSeconds {
                    report.add(.expExpired, "the card expired at \(ISODateText.string(secondsSince1970: exp)) (exp)")
                }
                if let nbf = claims.nbf, exp <= nbf {
                    report.add(.expBeforeNbf,
                               "the card expires (exp) at \(ISODateText.string(secondsSince1970: exp)), "
                                   + "not after it was issued (nbf) at \(ISODateText.string(secondsSince1970: nbf))")
                }
            } else {
                report.add(.expType, "exp is not a JSON number")
            }
        }
    }

    /// Rules 18-21 and 40. Returns the token index of the FHIR bundle when present.
    private func checkCredential(_ payload: JSONTape, _ vc: Int?, claims: inout SHCClaims,
                                 into report: inout SHCVerificationReport) -> Int? {
        guard let vc, payload.kind(vc) == .object else {
            report.add(.vcMissing, vc == nil ? "the payload has no vc" : "vc is not an object")
            return nil
        }
        var typeIndex: Int?, subjectIndex: Int?, ridIndex: Int?
        payload.forEachMember(of: vc) { key, value in
            if payload.stringEquals(key, "type") {
                typeIndex = value
            } else if payload.stringEquals(key, "credentialSubject") {
                subjectIndex = value
            } else if payload.stringEquals(key, "rid") {
                ridIndex = value
            } else if payload.stringEquals(key, "@context") {
                report.add(.vcJSONLD, "vc has @context; it belongs only to the JSON-LD mapping", path: "vc.@context")
            } else {
                report.add(.claimsUnexpected, "unexpected vc member \"\(payload.string(at: key))\"", path: "vc")
            }
        }
        if let typeIndex, payload.kind(typeIndex) == .array {
            var types: [String] = []
            var allStrings = true
            payload.forEachElement(of: typeIndex) { _, element in
                if payload.isString(element) { types.append(payload.string(at: element)) } else { allStrings = false }
            }
            claims.types = types
            if !allStrings {
                report.add(.vcTypeMissing, "vc.type has elements that are not strings", path: "vc.type")
            }
            if !types.contains(SHCCredentialType.healthCard) {
                report.add(.vcTypeHealthCard, "vc.type lacks \(SHCCredentialType.healthCard)", path: "vc.type")
            }
            if types.contains("VerifiableCredential") {
                report.add(.vcJSONLD, "vc.type has VerifiableCredential; it belongs only to the JSON-LD mapping", path: "vc.type")
            }
        } else {
            report.add(.vcTypeMissing, "vc.type is missing or not an array", path: "vc.type")
        }
        if let ridIndex {
            let rid = payload.stringValue(at: ridIndex)
            claims.rid = rid
            if rid.map(SHCRevocation.isValidRid) != true {
                report.add(.ridFormat, "vc.rid is not 1-24 base64url characters", path: "vc.rid")
            }
        }
        guard let subjectIndex, payload.kind(subjectIndex) == .object else {
            report.add(.bundleMissing, "vc.credentialSubject is missing or not an object", path: "vc.credentialSubject")
            return nil
        }
        let fhirVersion = payload.stringValue(at: payload.memberValue(of: subjectIndex, named: "fhirVersion"))
        claims.fhirVersion = fhirVersion
        if fhirVersion.map(SHCVerifier.isSemanticVersion) != true {
            report.add(.fhirVersion, "fhirVersion is missing or not a semantic version such as 4.0.1",
                       path: "vc.credentialSubject.fhirVersion")
        }
        guard let bundle = payload.memberValue(of: subjectIndex, named: "fhirBundle") else {
            report.add(.bundleMissing, "vc.credentialSubject.fhirBundle is missing", path: "vc.credentialSubject.fhirBundle")
            return nil
        }
        return bundle
    }

    /// `N.N.N` with decimal numbers.
    private static func isSemanticVersion(_ text: String) -> Bool {
        var dots = 0
        var digitsInPart = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digitsInPart > 0 else { return false }
                dots += 1
                digitsInPart = 0
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digitsInPart += 1
            } else {
                return false
            }
        }
        return dots == 2 && digitsInPart > 0
    }

    /// Rules 2-4, 7 and 33: the key with `kid` in `issuer`'s JWKS.
    private func findKey(issuer: String, kid: String, into report: inout SHCVerificationReport) async -> SHCJWK? {
        let keySet: SHCJWKSet?
        do {
            keySet = try await resolver.keySet(issuer: issuer)
        } catch {
            report.add(.resolverFailed, "the keys of \(issuer) could not be obtained: \(error)")
            return nil
        }
        guard let keySet else {
            report.add(.issuerUnknown, "no JWKS is known for issuer \(issuer)")
            return nil
        }
        guard let first = keySet.keys.first(where: { $0.kid == kid }) else {
            report.add(.keyNotFound, "the JWKS of \(issuer) has no key with kid \(kid)")
            return nil
        }
        if first.isValidSigningKey { return first }
        return keySet.keys.first { $0.kid == kid && $0.isValidSigningKey } ?? first
    }

    /// Rules 42-43.
    private func checkRevocation(issuer: String, kid: String, version: Int, claims: SHCClaims,
                                 into report: inout SHCVerificationReport) async {
        var list = revocationCache.list(issuer: issuer, kid: kid, version: version)
        if list == nil {
            do {
                list = try await resolver.revocationList(issuer: issuer, kid: kid)
            } catch {
                report.add(.crlUnavailable, "key \(kid) has crlVersion \(version) but its CRL could not be obtained: \(error)")
                return
            }
            if let list { revocationCache.store(list, issuer: issuer, kid: kid, version: version) }
        }
        guard let list else {
            report.add(.crlUnavailable, "key \(kid) has crlVersion \(version) but no CRL was found")
            return
        }
        for problem in list.problems { report.add(problem) }
        if list.kid != kid {
            report.add(.crlKid, "the CRL for key \(kid) names kid \(list.kid)")
        }
        if list.ctr != version {
            report.add(.crlCtr, "the CRL's ctr \(list.ctr) differs from the key's crlVersion \(version)")
        }
        let rid: String?
        switch list.method {
        case "rid":
            rid = claims.rid
        case "hash-fhir":
            // Legacy draft RFC 002 (rule 44): the rid is a hash of the canonical bundle.
            rid = report.bundle.map(SHCRevocation.hashFHIRRid(bundle:))
        default:
            report.add(.crlMethod, "the CRL's method is \"\(list.method)\"; only \"rid\" (and legacy \"hash-fhir\") are supported")
            return
        }
        if let rid, let entry = list.revokingEntry(rid: rid, nbf: claims.nbf ?? -Double.infinity) {
            report.revoked = true
            report.add(.revoked, entry.timestamp.map { "the card's rid is revoked for cards issued before \(ISODateText.string(secondsSince1970: Double($0)))"
                + (claims.nbf.map { ", and this card was issued (nbf) at \(ISODateText.string(secondsSince1970: $0))" } ?? "") }
                ?? "the card's rid is revoked")
        }
    }
}
