/// HL7 v3 Confidentiality (HCS, §2.11), ordered U < L < M < N < R < V. A permission's
/// `confidentialityScope` is a ceiling: `V` covers every level.
public enum ConfidentialityLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Unrestricted.
    case U
    /// Low.
    case L
    /// Moderate.
    case M
    /// Normal (the default for most clinical data).
    case N
    /// Restricted.
    case R
    /// Very restricted.
    case V

    /// The THO code system URI.
    public static let system = "http://terminology.hl7.org/CodeSystem/v3-Confidentiality"
    /// Code system URIs accepted when reading labels (THO and the older FHIR v3 URI).
    /// Every spelling of the system: the canonical URL, the R4 one, and the OID form.
    public static let systems: Set<String> = [system, "http://hl7.org/fhir/v3/Confidentiality", "urn:oid:2.16.840.1.113883.5.25"]

    /// The ordinal 0 (U) … 5 (V).
    public var rank: Int {
        switch self {
        case .U: 0
        case .L: 1
        case .M: 2
        case .N: 3
        case .R: 4
        case .V: 5
        }
    }

    public static func < (lhs: ConfidentialityLevel, rhs: ConfidentialityLevel) -> Bool { lhs.rank < rhs.rank }
}
