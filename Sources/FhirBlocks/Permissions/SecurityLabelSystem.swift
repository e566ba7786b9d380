/// The code systems of `meta.security` labels the server understands, recognised in their
/// variant spellings.
///
/// A system is compared after normalising what cannot change its meaning for these HL7
/// systems: ASCII case, an `http://` or `https://` scheme (either one), and trailing `/`.
/// So `https://terminology.hl7.org/CodeSystem/v3-Confidentiality/`,
/// `HTTP://TERMINOLOGY.HL7.ORG/CODESYSTEM/V3-CONFIDENTIALITY`, the R4-era
/// `http://hl7.org/fhir/v3/Confidentiality` and the OID `urn:oid:2.16.840.1.113883.5.25` are
/// all v3 Confidentiality. Any other text (another host, a `www.`, spaces, another path) is not
/// recognised, and ``SecurityLabels`` treats a label in a system it does not recognise as one
/// it cannot enforce: the resource is hidden from every grantee (fail closed).
public enum SecurityLabelSystem: Sendable, Hashable, CaseIterable {
    /// HL7 v3 Confidentiality (`U L M N R V`): the resource's confidentiality level.
    case confidentiality
    /// HL7 v3 ActCode: information sensitivity and handling codes; each one is a sensitivity
    /// the holder must be allowed (`sens/` scopes).
    case actCode
    /// HL7 v3 ObservationValue: only its security *integrity* codes (de-identified, masked,
    /// redacted, signed, reliability, provenance assertions) are understood; they describe the
    /// data and restrict nobody. Any other ObservationValue code is not understood.
    case observationValue

    /// Recognises a label's `system`, or nil when the server does not understand it.
    public init?(system: String) {
        guard let normalised = Self.normalise(system), let match = Self.bySpelling[normalised] else { return nil }
        self = match
    }

    /// The spellings of the system (before normalisation): its THO URL, its R4-era URL and
    /// its OID.
    public var spellings: Set<String> {
        switch self {
        case .confidentiality: ConfidentialityLevel.systems
        case .actCode: SensitivityCode.systems
        case .observationValue: [Self.observationValueSystem, "http://hl7.org/fhir/v3/ObservationValue", "urn:oid:2.16.840.1.113883.5.83"]
        }
    }

    /// The THO URL of HL7 v3 ObservationValue.
    public static let observationValueSystem = "http://terminology.hl7.org/CodeSystem/v3-ObservationValue"

    /// The ObservationValue codes of `_SecurityIntegrityObservationValue` (alteration, data
    /// integrity, integrity confidence and provenance): labels that describe the data and
    /// restrict nobody.
    public static let integrityCodes: Set<String> = [
        "ABSTRED", "AGGRED", "ANONYED", "MAPPED", "MASKED", "PSEUDED", "REDACTED", "SUBSETTED", "SYNTAC", "TRSLT", "VERSIONED",
        "CRYTOHASH", "DIGSIG",
        "HRELIABLE", "RELIABLE", "UNCERTREL", "UNRELIABLE",
        "CLINAST", "DEVAST", "HCPAST", "PACQAST", "PATAST", "PAYAST", "PROAST", "SDMAST",
        "CLINRPT", "DEVRPT", "HCPRPT", "PACQRPT", "PATRPT", "PAYRPT", "PRORPT", "SDMRPT",
    ]

    /// `system` lowercased (ASCII), without an `http://` or `https://` scheme and without
    /// trailing `/`; nil when nothing is left.
    static func normalise(_ system: String) -> String? {
        var text = Substring(String(decoding: system.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 }, as: UTF8.self))
        for scheme in ["http://", "https://"] where text.hasPrefix(scheme) {
            text = text.dropFirst(scheme.utf8.count)
            break
        }
        while text.hasSuffix("/") { text = text.dropLast() }
        return text.isEmpty ? nil : String(text)
    }

    /// Every known spelling, normalised.
    private static let bySpelling: [String: SecurityLabelSystem] = {
        var table: [String: SecurityLabelSystem] = [:]
        for system in SecurityLabelSystem.allCases {
            for spelling in system.spellings { if let key = normalise(spelling) { table[key] = system } }
        }
        return table
    }()
}
