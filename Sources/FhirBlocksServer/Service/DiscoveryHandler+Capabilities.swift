import ExactJSON
import FhirBlocksStore

/// The CapabilityStatement's `rest.resource` list: per resource type, exactly what the FHIR
/// routes answer (``FHIRController``), so that a client may trust it (`CapabilityWalkTests`
/// tries every declared interaction, search parameter, include and operation against the
/// server, and some undeclared ones).
///
/// - Stored types (``advertisedResourceTypes``, every R4 type the endpoint stores): `read`,
///   `vread`, `update` (a grantee may not
///   create by `PUT`; the patient's wallet may), `delete`, `history-instance`, `history-type`,
///   `create`, `search-type`; `versioned-update` (`If-Match`), history read, conditional
///   create and update, conditional read by `If-None-Match` only, no conditional delete; every
///   R4 token, date, reference and string search parameter of the type and of every resource
///   (`_id`, `_lastUpdated`, `_security`, `_tag`); `_include` of each of its reference
///   parameters, `_revinclude` of `Provenance:target` (and on Patient of the other types'
///   `patient` and `subject`); `$validate`; on Patient `$everything`, `$export` and, when
///   cards are issued, `$health-cards-issue`.
/// - `Consent` and `AuditEvent`, built by the server: `search-type` by `patient` only.
/// - `Group`, the Bulk Data Groups: `create` (`POST /fhir/Group`), `read` (the caller's own), `$export`.
extension DiscoveryHandler {
    /// The stored resource types the CapabilityStatement lists: every R4 type the endpoint stores
    /// and searches (each R4 type of the search parameter table but the three the server builds
    /// itself: Group, Consent, AuditEvent), Patient first, then the clinical types HealthKit's
    /// health records hold and Provenance (`_revinclude=Provenance:target`), then the others in
    /// byte order.
    static let advertisedResourceTypes: [String] = {
        let first = ["Patient", "AllergyIntolerance", "Condition", "Coverage", "DiagnosticReport", "DocumentReference", "Encounter", "Immunization",
                     "MedicationDispense", "MedicationRequest", "MedicationStatement", "Observation", "Procedure", "Provenance"]
        let built: Set<String> = ["Group", "Consent", "AuditEvent"]
        return first + SearchParameterTable.resourceTypes.filter { !built.contains($0) && !first.contains($0) }
    }()

    /// The interactions of a stored type, in the order the CapabilityStatement lists them.
    static let storedInteractions = ["read", "vread", "update", "delete", "history-instance", "history-type", "create", "search-type"]

    /// `{"code": text}`.
    static func code(_ text: String) -> JSONValue {
        .object(JSONObject(members: [JSONMember(key: "code", value: .string(text))]))
    }

    /// An `operation` entry: its name and its definition's canonical URL.
    static func operation(_ name: String, _ definition: String) -> JSONValue {
        .object(JSONObject(members: [JSONMember(key: "name", value: .string(name)), JSONMember(key: "definition", value: .string(definition))]))
    }

    /// `$validate` (FHIR's Resource-validate).
    static let validateOperation = operation("validate", "http://hl7.org/fhir/OperationDefinition/Resource-validate")

    /// `$everything` on Patient (FHIR's Patient-everything).
    static let everythingOperation = operation("everything", "http://hl7.org/fhir/OperationDefinition/Patient-everything")

    /// The `rest.resource` entries (`issuesHealthCards`: whether Patient lists `$health-cards-issue`).
    static func resourceCapabilities(issuesHealthCards: Bool) -> [JSONValue] {
        var entries: [JSONValue] = [groupCapability]
        for type in advertisedResourceTypes {
            guard var entry = storedCapabilities[type] else { continue }
            var operations = [validateOperation]
            if type == "Patient" {
                operations = (issuesHealthCards ? [FHIRController.healthCardsIssueOperation] : []) + operations
                    + [everythingOperation, exportOperation("patient-export")]
            }
            entry.append("operation", .array(operations))
            entries.append(.object(entry))
        }
        entries += [searchOnlyCapability("Consent"), searchOnlyCapability("AuditEvent")]
        return entries
    }

    /// Group: created by `POST /fhir/Group` to export it, read back by its creator.
    static let groupCapability: JSONValue = .object(JSONObject(members: [
        JSONMember(key: "type", value: .string("Group")),
        JSONMember(key: "interaction", value: .array(["read", "create"].map(code))),
        JSONMember(key: "versioning", value: .string("no-version")),
        JSONMember(key: "operation", value: .array([exportOperation("group-export")])),
    ]))

    /// A type the server builds (Consent, AuditEvent): searched by `patient`, nothing else.
    static func searchOnlyCapability(_ type: String) -> JSONValue {
        .object(JSONObject(members: [
            JSONMember(key: "type", value: .string(type)),
            JSONMember(key: "interaction", value: .array([code("search-type")])),
            JSONMember(key: "searchParam", value: .array([.object(JSONObject(members: [
                JSONMember(key: "name", value: .string("patient")), JSONMember(key: "type", value: .string("reference")),
            ]))])),
        ]))
    }

    /// Each stored type's entry but its operations, built once (the table does not change;
    /// `/fhir/metadata` is answered without authentication, so it should cost little).
    static let storedCapabilities: [String: JSONObject] = Dictionary(uniqueKeysWithValues: advertisedResourceTypes.map { type -> (String, JSONObject) in
        let parameters = SearchParameterTable.parameters(type: type)
        var entry = JSONObject()
        entry.append("type", .string(type))
        entry.append("interaction", .array(storedInteractions.map(code)))
        entry.append("versioning", "versioned-update")
        entry.append("readHistory", .bool(true))
        entry.append("updateCreate", .bool(true))
        entry.append("conditionalCreate", .bool(true))
        entry.append("conditionalRead", "not-match")
        entry.append("conditionalUpdate", .bool(true))
        entry.append("conditionalDelete", "not-supported")
        entry.append("searchInclude", strings: parameters.filter { $0.type == .reference }.map { "\(type):\($0.code)" })
        var revincludes = ["Provenance:target"]
        if type == "Patient" {
            for source in advertisedResourceTypes where source != "Patient" {
                for name in ["patient", "subject"] where SearchParameterTable.parameter(name, type: source)?.type == .reference {
                    revincludes.append("\(source):\(name)")
                }
            }
        }
        entry.append("searchRevInclude", strings: revincludes)
        entry.append("searchParam", .array(parameters.map(searchParamEntry)))
        return (type, entry)
    })
}
