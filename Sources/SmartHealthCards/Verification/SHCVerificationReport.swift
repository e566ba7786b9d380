import ExactJSON

/// The outcome of verifying one card. Errors and warnings are separate; whether the signature is
/// valid and whether the issuer is trusted are reported on their own.
///
/// A card should be accepted only when ``isValid`` is true and, when a trust policy is
/// configured, ``issuerTrusted`` is true (``isAccepted``).
public struct SHCVerificationReport: Sendable, Encodable {
    /// Problems that invalidate the card.
    public var errors: [SHCFinding] = []
    /// Problems worth reporting that do not invalidate the card.
    public var warnings: [SHCFinding] = []
    /// Whether an ES256 signature by the issuer's key (found in that issuer's JWKS by `kid`) verifies
    /// over the JWS. False when no key could be found.
    public var signatureValid = false
    /// Whether the trust policy trusts `iss`; nil when no trust policy is configured.
    public var issuerTrusted: Bool?
    /// The issuer's display name when the trust policy knows it.
    public var issuerName: String?
    /// Whether the card's rid is on its key's revocation list (rule 42).
    public var revoked = false
    /// The JWS header, when it could be read.
    public var header: SHCJWSHeader?
    /// The claims, when the payload could be read.
    public var claims: SHCClaims?
    /// The inflated payload and where the bundle is in it; the bundle and summary are built from
    /// it only when asked for, which keeps verification itself lean.
    var payloadTape: JSONTape?
    var bundleIndex: Int?

    /// Creates an empty report.
    public init() {}

    /// The FHIR Bundle (`vc.credentialSubject.fhirBundle`), when present.
    public var bundle: JSONValue? {
        guard let payloadTape, let bundleIndex else { return nil }
        return payloadTape.value(at: bundleIndex)
    }

    /// The FHIR Bundle exactly as its JSON appears in the payload, when present.
    public var bundleJSON: [UInt8]? {
        guard let payloadTape, let bundleIndex else { return nil }
        return Array(payloadTape.bytes[payloadTape.byteRange(of: bundleIndex)])
    }

    /// The inflated payload JSON (the JWT claims) exactly as signed, when it could be inflated and parsed.
    public var payloadJSON: [UInt8]? {
        payloadTape?.bytes
    }

    /// The payload (the JWT claims) as a JSON tree, members in their signed order, when it could
    /// be inflated and parsed. Built on each access.
    public var payload: JSONValue? {
        payloadTape?.value(at: 0)
    }

    /// The display summary, when the claims could be read. Computed on each access, straight from
    /// the payload (no JSON tree is built).
    public var summary: SHCCardSummary? {
        guard let claims else { return nil }
        return SHCCardSummary(claims: claims, tape: payloadTape, bundle: bundleIndex, issuerName: issuerName)
    }

    /// No errors: every checked rule holds (the issuer may still be untrusted).
    public var isValid: Bool { errors.isEmpty }

    /// Valid and, when a trust policy is configured, from a trusted issuer.
    public var isAccepted: Bool { isValid && issuerTrusted != false }

    /// Errors then warnings.
    public var findings: [SHCFinding] { errors + warnings }

    /// Whether a finding with this code was reported.
    public func contains(_ code: SHCFindingCode) -> Bool {
        errors.contains { $0.code == code } || warnings.contains { $0.code == code }
    }

    /// Adds a finding to the errors or the warnings according to its severity.
    public mutating func add(_ finding: SHCFinding) {
        switch finding.severity {
        case .error: errors.append(finding)
        case .warning: warnings.append(finding)
        }
    }

    mutating func add(_ code: SHCFindingCode, _ message: String, path: String? = nil) {
        add(SHCFinding(code, message, path: path))
    }

    private enum CodingKeys: String, CodingKey {
        case isValid, isAccepted, signatureValid, issuerTrusted, issuerName, revoked, errors, warnings
        case header, claims, summary, bundle
    }

    /// Encodes the report, including ``isValid`` and ``isAccepted``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(isValid, forKey: .isValid)
        try container.encode(isAccepted, forKey: .isAccepted)
        try container.encode(signatureValid, forKey: .signatureValid)
        try container.encode(issuerTrusted, forKey: .issuerTrusted)
        try container.encodeIfPresent(issuerName, forKey: .issuerName)
        try container.encode(revoked, forKey: .revoked)
        try container.encode(errors, forKey: .errors)
        try container.encode(warnings, forKey: .warnings)
        try container.encodeIfPresent(header, forKey: .header)
        try container.encodeIfPresent(claims, forKey: .claims)
        try container.encodeIfPresent(summary, forKey: .summary)
        try container.encodeIfPresent(bundle, forKey: .bundle)
    }
}
