import ExactJSON

/// Writes a permission as a FHIR R4 `Consent` resource (§2.8), built with FHIRCore's JSON types.
///
/// Mapping: `patient` and `performer` (the grantor) and the provision's actor (the grantee, role
/// v3-ParticipationType `IRCP`) are identifier references in the `urn:fhirblocks:csi` system;
/// the window is `provision.period`; the resource scope is `provision.class`; read/write map to
/// the consentaction codes `access`/`correct` and the exact interactions go in an extension;
/// the ceiling and sensitivities are `provision.securityLabel`; a delegated permission names its
/// parent in an extension. A revoked (or otherwise no longer effective) permission is
/// `status: inactive`.
public enum ConsentBuilder {
    /// The identifier system of csiGuids.
    public static let csiSystem = "urn:fhirblocks:csi"
    /// The identifier system of permission ids.
    public static let permissionSystem = "urn:fhirblocks:permission"
    /// Extension carrying the SMART v2 interaction letters of the provision.
    public static let accessRightsExtension = "https://openhealthkit.org/fhir/StructureDefinition/fhirblocks-access-rights"
    /// Extension naming the permission a delegated permission derives from.
    public static let delegatedFromExtension = "https://openhealthkit.org/fhir/StructureDefinition/fhirblocks-delegated-from"

    /// The Consent for `permission`. `active` says whether it is in force (from
    /// ``PermissionLedger/effective(_:at:)``); `patientReference` (for example `Patient/123`)
    /// replaces the csi identifier reference when the server knows the Patient resource.
    public static func consent(for permission: Permission, active: Bool, patientReference: String? = nil) -> JSONValue {
        var consent = JSONObject()
        consent.append("resourceType", "Consent")
        consent.append("id", permission.id.rawValue)
        consent.append("identifier", .array([identifier(permissionSystem, permission.id.rawValue)]))
        consent.append("status", active ? "active" : "inactive")
        consent.append("scope", concept("http://terminology.hl7.org/CodeSystem/consentscope", "patient-privacy"))
        consent.append("category", .array([concept("http://loinc.org", "59284-0", display: "Patient Consent")]))
        if let patientReference {
            consent.append("patient", .object(JSONObject(members: [JSONMember(key: "reference", value: .string(patientReference))])))
        } else {
            consent.append("patient", reference(type: "Patient", permission.patient))
        }
        consent.append("dateTime", permission.grantedAt.wireText)
        consent.append("performer", .array([reference(type: permission.grantor == permission.patient ? "Patient" : "Device", permission.grantor)]))
        consent.append("policyRule", concept("http://terminology.hl7.org/CodeSystem/v3-ActCode", "OPTIN"))

        var provision = JSONObject()
        var extensions: [JSONValue] = [extensionValue(accessRightsExtension, key: "valueCode", permission.scope.access.v2Text)]
        if let parent = permission.parent {
            extensions.append(extensionValue(delegatedFromExtension, key: "valueString", parent.rawValue))
        }
        provision.append("extension", .array(extensions))
        provision.append("type", "permit")
        var period = JSONObject()
        period.append("start", permission.window.notBefore.wireText)
        period.append("end", permission.window.notAfter.wireText)
        provision.append("period", .object(period))
        var actor = JSONObject()
        actor.append("role", concept("http://terminology.hl7.org/CodeSystem/v3-ParticipationType", "IRCP"))
        actor.append("reference", reference(type: nil, permission.grantee))
        provision.append("actor", .array([.object(actor)]))
        var actions: [JSONValue] = []
        let access = permission.scope.access
        if !access.intersection(AccessRights.v1Read).isEmpty { actions.append(concept("http://terminology.hl7.org/CodeSystem/consentaction", "access")) }
        if !access.intersection(AccessRights.v1Write).isEmpty { actions.append(concept("http://terminology.hl7.org/CodeSystem/consentaction", "correct")) }
        provision.append("action", .array(actions))
        var labels: [JSONValue] = [coding(ConfidentialityLevel.system, permission.scope.confidentialityCeiling.rawValue)]
        labels += permission.scope.sensitivities.sortedCodes.map { coding(SensitivityCode.system, $0.rawValue) }
        provision.append("securityLabel", .array(labels))
        if case .type(let name) = permission.scope.resource {
            provision.append("class", .array([coding("http://hl7.org/fhir/resource-types", name)]))
        }
        consent.append("provision", .object(provision))
        return .object(consent)
    }

    private static func coding(_ system: String, _ code: String, display: String? = nil) -> JSONValue {
        var object = JSONObject()
        object.append("system", system)
        object.append("code", code)
        object.append("display", ifPresent: display)
        return .object(object)
    }

    private static func concept(_ system: String, _ code: String, display: String? = nil) -> JSONValue {
        .object(JSONObject(members: [JSONMember(key: "coding", value: .array([coding(system, code, display: display)]))]))
    }

    private static func identifier(_ system: String, _ value: String) -> JSONValue {
        var object = JSONObject()
        object.append("system", system)
        object.append("value", value)
        return .object(object)
    }

    private static func reference(type: String?, _ csi: CsiGuid) -> JSONValue {
        var object = JSONObject()
        object.append("type", ifPresent: type)
        object.append("identifier", identifier(csiSystem, csi.rawValue))
        return .object(object)
    }

    private static func extensionValue(_ url: String, key: String, _ value: String) -> JSONValue {
        var object = JSONObject()
        object.append("url", url)
        object.append(key, value)
        return .object(object)
    }
}
