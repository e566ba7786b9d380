import ExactJSON

/// The security labels of a FHIR resource (`meta.security`, §2.7, §2.11) that label filtering
/// looks at: its confidentiality level and its sensitivity tags.
///
/// Every `meta.security` coding is a security label, and reading fails closed:
/// - HL7 v3 Confidentiality sets the level (the highest one wins); an unknown code counts as `V`.
/// - Every code of HL7 v3 ActCode counts as a sensitivity tag the holder must be allowed
///   (handling caveats too); a code that is not a well-formed one counts as a sensitivity nobody
///   holds.
/// - HL7 v3 ObservationValue's security integrity codes (``SecurityLabelSystem/integrityCodes``:
///   de-identified, masked, signed, reliability, provenance) describe the data and restrict
///   nobody.
/// - A label in any other system, or another ObservationValue code, is one the server does not
///   understand and so cannot enforce: purpose of use (v3-ActReason), obligation and refrain
///   policies, a misspelt or private system. It counts as ``unrecognised``, a sensitivity no
///   scope can name, so the resource is hidden from every grantee and shown only to holders of
///   every sensitivity (the patient's own wallet).
/// - A label that cannot be interpreted at all (a coding without a system, or not an object)
///   counts as `V` and as ``unrecognised``.
///
/// The three systems are recognised in every spelling (THO URL, R4-era URL, OID) and in their
/// variants of case, `http`/`https` scheme and trailing `/` (``SecurityLabelSystem``).
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
            guard let object = coding.objectValue, let system = object["system"]?.stringValue, !system.isEmpty else {
                // Whose label it is cannot be told: the most restrictive reading.
                confidentiality = .V
                sensitivities.insert(Self.unrecognised)
                continue
            }
            let code = object["code"]?.stringValue ?? ""
            switch SecurityLabelSystem(system: system) {
            case .confidentiality?:
                let level = ConfidentialityLevel(rawValue: code) ?? .V
                confidentiality = max(confidentiality ?? level, level)
            case .actCode?:
                // An ActCode tag that is not a well-formed code still restricts: keep it as an
                // impossible code so no sensitivity set allows it.
                sensitivities.insert(SensitivityCode(code) ?? Self.unrecognised)
            case .observationValue? where SecurityLabelSystem.integrityCodes.contains(code):
                continue
            case .observationValue?, nil:
                sensitivities.insert(Self.unrecognised)
            }
        }
    }

    /// Whether a label the server does not understand (or cannot read) is among them: then only
    /// a holder of every sensitivity (the patient's wallet) may see the resource.
    public var hasUnrecognisedLabel: Bool { sensitivities.contains(Self.unrecognised) }

    /// Stands for a label the server does not understand or cannot read. It is not a
    /// well-formed ActCode code, so no `sens/` scope or granted sensitivity can name it: only
    /// an unrestricted ``SensitivitySet`` allows it.
    public static let unrecognised = SensitivityCode(unrecognised: ())
}
