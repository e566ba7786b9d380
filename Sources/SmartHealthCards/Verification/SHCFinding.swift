/// One problem found while verifying a card: an error (the card must not be accepted) or a
/// warning (worth showing, does not invalidate the card).
///
/// Messages describe structure (member names, indexes, counts, key ids, issuer URLs) and never
/// quote patient data from the bundle.
public struct SHCFinding: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// How serious a finding is.
    public enum Severity: String, Sendable, Hashable, Encodable {
        /// The card must be rejected.
        case error
        /// Worth reporting; the card stays valid.
        case warning
    }

    /// The stable machine-readable code (see ``SHCFindingCode``).
    public var code: SHCFindingCode
    /// The rule number in the conformance checklist (docs/smart-health-cards.md).
    public var rule: Int
    /// Error or warning.
    public var severity: Severity
    /// A human-readable explanation.
    public var message: String
    /// Where in the payload or bundle, as a JSON path such as `vc.credentialSubject.fhirBundle.entry[1].resource.id`
    /// (structure only), when it applies.
    public var path: String?

    /// Creates a finding with the code's default rule and severity.
    public init(_ code: SHCFindingCode, _ message: String, path: String? = nil) {
        self.code = code
        self.rule = code.rule
        self.severity = code.severity
        self.message = message
        self.path = path
    }

    /// `error [jws.header.alg] (rule 11): message`.
    public var description: String {
        var text = "\(severity.rawValue) [\(code.rawValue)] (rule \(rule)): \(message)"
        if let path { text += " at \(path)" }
        return text
    }
}
