import FHIRCore

/// The security labels of a FHIR resource (`meta.security`, §2.7, §2.11) that label filtering
/// looks at: its confidentiality level and its sensitivity tags.
///
/// Reading fails closed: an unknown Confidentiality code counts as `V`, every code of the
/// v3-ActCode system counts as a sensitivity tag the holder must be allowed, and a label that
/// cannot be interpreted at all (a coding without a system) counts as `V` and as a sensitivity
/// nobody holds. Both systems are recognised in every spelling (URL or OID).
public struct SecurityLabels: Sendable, Hashable {
    /// The highest confidentiality label, or nil if the resource has none.
    public var confidentiality: ConfidentialityLevel?
    /// The sensitivity tags.
    public var sensitivities: Set<SensitivityCode>

    /// Creates labels.
    public init(confidentiality: ConfidentialityLevel?, sensitivities: Set<SensitivityCode>) {
        self.confidentiality = confidentiality
        self.sensitivities = sensitivities
    }

    /// Reads the labels of a resource (any JSON; a resource without `meta.security` has none).
    public init(resource: JSONValue) {
        confidentiality = nil
        sensitivities = []
        guard let security = resource.objectValue?["meta"]?.objectValue?["security"]?.arrayValue else { return }
        for coding in security {
            guard let object = coding.objectValue else { continue }
            guard let system = object["system"]?.stringValue, !system.isEmpty else {
                // Whose label it is cannot be told: the most restrictive reading.
                confidentiality = .V
                sensitivities.insert(Self.unreadable)
                continue
            }
            let code = object["code"]?.stringValue ?? ""
            if ConfidentialityLevel.systems.contains(system) {
                let level = ConfidentialityLevel(rawValue: code) ?? .V
                confidentiality = max(confidentiality ?? level, level)
            } else if SensitivityCode.systems.contains(system) {
                // An ActCode tag that is not a well-formed code still restricts: keep it as an
                // impossible code so no sensitivity set allows it.
                sensitivities.insert(SensitivityCode(code) ?? Self.unreadable)
            }
        }
    }

    /// Stands for an ActCode label whose code could not be read; never granted.
    static let unreadable = SensitivityCode("UNREADABLE0LABEL") ?? SensitivityCode.known[0]
}
