/// An HL7 v3 ActCode information-sensitivity code (§2.11), for example `ETH`, `HIV`, `PSY`.
/// The vocabulary is open (newer codes such as `BH`, `SUD`, `PSYTHPN` exist), so any code of
/// 2–16 uppercase letters or digits is accepted.
public struct SensitivityCode: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The code.
    public let rawValue: String

    /// The THO code system URI.
    public static let system = "http://terminology.hl7.org/CodeSystem/v3-ActCode"
    /// Code system URIs accepted when reading labels (THO and the older FHIR v3 URI).
    /// Every spelling of the system: the canonical URL, the R4 one, and the OID form.
    public static let systems: Set<String> = [system, "http://hl7.org/fhir/v3/ActCode", "urn:oid:2.16.840.1.113883.5.4"]

    /// The codes of _ActInformationSensitivityPolicy listed in the doc.
    public static let known: [SensitivityCode] = ["ETH", "GDIS", "HIV", "PSY", "SCA", "SDV", "SEX", "STD", "SOC", "TBOO", "BH", "SUD", "PSYTHPN"]
        .compactMap(SensitivityCode.init)

    /// Reads a code, or nil if it is not 2–16 characters of `[A-Z0-9]`.
    public init?(_ code: String) {
        let utf8 = code.utf8
        guard (2...16).contains(utf8.count),
              utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else {
            return nil
        }
        rawValue = code
    }

    /// The code of ``SecurityLabels/unrecognised``: not of the ActCode form, so the failable
    /// initializer (every scope and grant) never yields it.
    init(unrecognised: Void) {
        rawValue = "unrecognised-label"
    }

    public static func < (lhs: SensitivityCode, rhs: SensitivityCode) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
