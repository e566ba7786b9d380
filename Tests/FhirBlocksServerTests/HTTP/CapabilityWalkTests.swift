import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// The CapabilityStatement is true: fetched from the server on 127.0.0.1 (every store) and
/// walked, every declared interaction, conditional flag, search parameter, `_include`,
/// `_revinclude` and operation of every type is tried against a seeded compartment and must
/// be answered as supported; the interactions and parameters a type does not declare are
/// tried too and must be refused. The statement lists every R4 type the endpoint stores: the
/// types this walk can write a valid resource of (the records types, and CarePlan, Goal and
/// ServiceRequest, unlisted before) are walked whole; every other one is read (404 for an
/// unknown id, not 405), searched by each declared parameter and `_include`, and validated.
@Suite struct CapabilityWalkTests {
    typealias Rest = FHIRRestTests
    typealias Fixture = FHIRRestTests.Fixture

    /// The types ``minimal(_:)`` writes a valid resource of.
    static let walkable: Set<String> = ["Patient", "AllergyIntolerance", "Condition", "Procedure", "Coverage", "DiagnosticReport", "Observation",
                                        "DocumentReference", "Encounter", "Immunization", "MedicationDispense", "MedicationRequest",
                                        "MedicationStatement", "Provenance", "CarePlan", "Goal", "ServiceRequest"]

    /// A small valid resource of each type in ``walkable``, about `Patient/p1` (of another type, only its `resourceType`).
    static func minimal(_ type: String) -> String {
        let patient = #"{"reference":"Patient/p1"}"#
        let code = #"{"coding":[{"system":"http://loinc.org","code":"8867-4"}]}"#
        let members: String
        switch type {
        case "Patient": members = #""name":[{"family":"Walk"}]"#
        case "AllergyIntolerance": members = #""patient":\#(patient),"code":\#(code)"#
        case "Condition": members = #""subject":\#(patient),"code":\#(code)"#
        case "Procedure": members = #""status":"completed","subject":\#(patient),"code":\#(code)"#
        case "Coverage": members = #""status":"active","beneficiary":\#(patient),"payor":[\#(patient)]"#
        case "DiagnosticReport", "Observation": members = #""status":"final","code":\#(code),"subject":\#(patient),"effectiveDateTime":"2020-01-05""#
        case "DocumentReference": members = #""status":"current","subject":\#(patient),"content":[{"attachment":{"contentType":"text/plain"}}]"#
        case "Encounter":
            members = #""status":"finished","class":{"system":"http://terminology.hl7.org/CodeSystem/v3-ActCode","code":"AMB"},"subject":\#(patient)"#
        case "Immunization": members = #""status":"completed","vaccineCode":\#(code),"patient":\#(patient),"occurrenceDateTime":"2020-01-05""#
        case "MedicationDispense": members = #""status":"completed","medicationCodeableConcept":\#(code),"subject":\#(patient)"#
        case "MedicationRequest": members = #""status":"active","intent":"order","medicationCodeableConcept":\#(code),"subject":\#(patient)"#
        case "MedicationStatement": members = #""status":"active","medicationCodeableConcept":\#(code),"subject":\#(patient)"#
        case "Provenance": members = #""target":[\#(patient)],"recorded":"2020-01-05T10:00:00Z","agent":[{"who":{"display":"Dr. Lee"}}]"#
        case "CarePlan", "ServiceRequest": members = #""status":"active","intent":"plan","subject":\#(patient)"#
        case "Goal": members = #""lifecycleStatus":"active","description":{"text":"walk daily"},"subject":\#(patient)"#
        default: members = ""
        }
        return members.isEmpty ? #"{"resourceType":"\#(type)"}"# : #"{"resourceType":"\#(type)",\#(members)}"#
    }

    /// `resource` with `"id": id` first.
    static func with(id: String, _ resource: String) -> String {
        resource.replacingOccurrences(of: #"{"resourceType":"#, with: #"{"id":"\#(id)","resourceType":"#)
    }

    /// A value of a search parameter's type that the seeded resources may or may not match.
    static func value(ofType type: String) -> String {
        switch type {
        case "date": "ge2020-01-01"
        case "reference": "Patient/p1"
        case "string": "w"
        default: "http://loinc.org|8867-4"
        }
    }

    static func codes(_ list: JSONValue?) -> [String] {
        (list?.arrayValue ?? []).compactMap { $0.objectValue?["code"]?.stringValue }
    }

    /// Whether a searchset answered the parameters as supported: 200, and no OperationOutcome entry naming ignored ones.
    static func searched(_ response: (status: Int, headers: [(String, String)], json: JSONObject)) -> Bool {
        response.status == 200 && response.json["type"] == .string("searchset")
            && !(response.json["entry"]?.arrayValue ?? []).contains { $0.objectValue?["search"]?.objectValue?["mode"] == .string("outcome") }
    }

    @Test(arguments: TestBackend.available)
    func everyDeclaredCapabilityIsAnsweredAndNothingElse(backend: TestBackend) async throws {
        try await Rest.with(backend) { fixture in
            let token = fixture.walletToken
            let metadata = try await fixture.send(.GET, "metadata", token: nil)
            try #require(metadata.status == 200 && metadata.json["resourceType"] == .string("CapabilityStatement"))
            let rest = try #require(metadata.json["rest"]?.arrayValue?.first?.objectValue)
            let resources = (rest["resource"]?.arrayValue ?? []).compactMap(\.objectValue)
            let storedTypes = resources.compactMap { $0["type"]?.stringValue }.filter { !["Group", "Consent", "AuditEvent"].contains($0) }
            // Every R4 type the endpoint stores, CarePlan and the other types once unlisted included.
            #expect(storedTypes.count > 100 && Self.walkable.isSubset(of: storedTypes), "\(storedTypes)")
            #expect(Set(storedTypes).count == storedTypes.count && storedTypes.allSatisfy { ResourceScope($0) != nil })
            // The seeded compartment: Patient/p1 and one resource of each walked type.
            try await fixture.put([#"{"resourceType":"Patient","id":"p1","name":[{"family":"Walk"}]}"#])
            try await fixture.put(storedTypes.filter { $0 != "Patient" && Self.walkable.contains($0) }.map { Self.with(id: "seed", Self.minimal($0)) })

            var tried = 0
            for resource in resources {
                let type = try #require(resource["type"]?.stringValue)
                let interactions = Set(Self.codes(resource["interaction"]))
                switch type {
                case "Group":
                    try await checkGroup(fixture, interactions: interactions, operations: resource["operation"])
                    tried += 1
                    continue
                case "Consent", "AuditEvent":
                    #expect(interactions == ["search-type"], "\(type)")
                    for parameter in resource["searchParam"]?.arrayValue ?? [] {
                        let name = try #require(parameter.objectValue?["name"]?.stringValue)
                        #expect(try await fixture.send(.GET, "\(type)?\(name)=Patient/p1", token: token).status == 200, "\(type)?\(name)")
                        tried += 1
                    }
                    // Undeclared: read, create, history, delete.
                    #expect(try await fixture.send(.GET, "\(type)/x", token: token).status >= 400, "\(type) read")
                    #expect(try await fixture.send(.POST, type, token: token, body: #"{"resourceType":"\#(type)"}"#).status == 405, "\(type) create")
                    #expect(try await fixture.send(.GET, "\(type)/_history", token: token).status >= 400, "\(type) history")
                    #expect(try await fixture.send(.DELETE, "\(type)/x", token: token).status == 405, "\(type) delete")
                    continue
                default:
                    break
                }
                if Self.walkable.contains(type) {
                    tried += try await checkStored(fixture, type: type, resource: resource, interactions: interactions)
                } else {
                    tried += try await checkSearched(fixture, type: type, resource: resource, interactions: interactions)
                }
            }
            #expect(tried > 300, "\(tried) capabilities tried")

            // System level: batch and transaction as declared, the export operation.
            let system = Set(Self.codes(rest["interaction"]))
            #expect(system == ["batch", "transaction"])
            let batch = try await fixture.send(.POST, "", token: token, body: Rest.bundle("batch", [Rest.entry("GET", "Patient/p1")]))
            #expect(batch.status == 200 && batch.json["type"] == .string("batch-response"))
            let created = Rest.bundle("transaction", [Rest.entry("POST", "Observation", resource: Self.minimal("Observation"))])
            let transaction = try await fixture.send(.POST, "", token: token, body: created)
            #expect(transaction.status == 200 && transaction.json["type"] == .string("transaction-response"))
            // No system history or search is declared, and none is answered.
            #expect(try await fixture.send(.GET, "_history", token: token).status >= 400)
            #expect(try await fixture.send(.GET, "?_id=p1", token: token).status >= 400)
            for operation in rest["operation"]?.arrayValue ?? [] {
                #expect(operation.objectValue?["name"] == .string("export"))
                // The wallet is no auditor: refused for who it is, not as unknown.
                let kickoff = try await fixture.send(.GET, "$export", token: token, headers: [("Prefer", "respond-async")])
                #expect(kickoff.status == 202 || kickoff.status == 403, "\(kickoff.status)")
            }
        }
    }

    /// Tries a stored type's declared interactions, flags, parameters, inclusions and
    /// operations, and some undeclared ones; returns how many it tried.
    func checkStored(_ fixture: Fixture, type: String, resource: JSONObject, interactions: Set<String>) async throws -> Int {
        let token = fixture.walletToken
        var tried = 0
        let all = ["create", "read", "vread", "update", "history-instance", "history-type", "search-type", "delete"]
        #expect(Set(all) == interactions, "\(type): \(interactions)")
        // create
        let created = try await fixture.send(.POST, type, token: token, body: Self.minimal(type))
        #expect(created.status == 201, "\(type) create: \(created.status) \(created.json)")
        let id = try #require(created.json["id"]?.stringValue)
        let path = "\(type)/\(id)"
        #expect(try await fixture.send(.GET, path, token: token).status == 200, "\(type) read")
        #expect(try await fixture.send(.GET, path + "/_history/1", token: token).status == 200, "\(type) vread")
        let updated = try await fixture.send(.PUT, path, token: token, body: Self.with(id: id, Self.minimal(type)))
        #expect(updated.status == 200, "\(type) update: \(updated.status)")
        #expect(try await fixture.send(.GET, path + "/_history", token: token).json["total"] == .number("2"), "\(type) history-instance")
        #expect(try await fixture.send(.GET, type + "/_history", token: token).json["type"] == .string("history"), "\(type) history-type")
        #expect(Self.searched(try await fixture.send(.GET, type, token: token)), "\(type) search-type")
        tried += 7

        // The flags.
        #expect(resource["versioning"] == .string("versioned-update") && resource["readHistory"] == .bool(true))
        let stale = try await fixture.send(.PUT, path, token: token, body: Self.with(id: id, Self.minimal(type)), headers: [("If-Match", "W/\"1\"")])
        #expect(stale.status == 412, "\(type) versioned-update")
        if resource["updateCreate"] == .bool(true) {
            let fresh = "made-\(type.lowercased())"
            #expect(try await fixture.send(.PUT, "\(type)/\(fresh)", token: token, body: Self.with(id: fresh, Self.minimal(type))).status == 201,
                    "\(type) updateCreate")
        }
        #expect(resource["conditionalCreate"] == .bool(true))
        let conditional = try await fixture.send(.POST, type, token: token, body: Self.minimal(type), headers: [("If-None-Exist", "_id=\(id)")])
        #expect(conditional.status == 200 && conditional.json["id"] == .string(id), "\(type) conditionalCreate")
        #expect(resource["conditionalUpdate"] == .bool(true))
        #expect(try await fixture.send(.PUT, "\(type)?_id=\(id)", token: token, body: Self.minimal(type)).status == 200, "\(type) conditionalUpdate")
        #expect(resource["conditionalRead"] == .string("not-match"))
        #expect(try await fixture.send(.GET, path, token: token, headers: [("If-None-Match", "W/\"3\"")]).status == 304, "\(type) conditionalRead")
        #expect(resource["conditionalDelete"] == .string("not-supported"))
        #expect(try await fixture.send(.DELETE, "\(type)?_id=\(id)", token: token).status >= 400, "\(type) conditional delete answered")
        tried += 6

        // Every declared search parameter, strictly (an unknown one would be 400).
        let strict = [("Prefer", "handling=strict")]
        for parameter in resource["searchParam"]?.arrayValue ?? [] {
            let name = try #require(parameter.objectValue?["name"]?.stringValue)
            let kind = try #require(parameter.objectValue?["type"]?.stringValue)
            #expect(["token", "date", "reference", "string"].contains(kind), "\(type)?\(name): \(kind)")
            let value = Self.value(ofType: kind).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let response = try await fixture.send(.GET, "\(type)?\(name)=\(value)", token: token, headers: strict)
            #expect(Self.searched(response), "\(type)?\(name)=\(value): \(response.status) \(response.json)")
            tried += 1
        }
        // What is not declared is refused.
        #expect(try await fixture.send(.GET, "\(type)?no-such-parameter=1", token: token, headers: strict).status == 400, "\(type) unknown parameter")
        for name in ["searchInclude", "searchRevInclude"] {
            let control = name == "searchInclude" ? "_include" : "_revinclude"
            for value in resource[name]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                let response = try await fixture.send(.GET, "\(type)?_id=seed&\(control)=\(value)", token: token)
                #expect(Self.searched(response), "\(type)?\(control)=\(value): \(response.status)")
                tried += 1
            }
        }
        #expect(try await fixture.send(.GET, "\(type)?_include=\(type):no-such-parameter", token: token).status == 400)
        // Provenance:target brings the seeded Provenance (which targets Patient/p1) to Patient.
        if type == "Patient" {
            let included = try await fixture.send(.GET, "Patient?_id=p1&_revinclude=Provenance:target", token: token)
            #expect(Rest.entries(included.json, mode: "include") == ["Provenance/seed"])
        }

        // The operations.
        for operation in resource["operation"]?.arrayValue?.compactMap(\.objectValue) ?? [] {
            let name = try #require(operation["name"]?.stringValue)
            switch name {
            case "validate":
                let validated = try await fixture.send(.POST, "\(type)/$validate", token: token, body: Self.minimal(type))
                #expect(validated.status == 200 && validated.json["resourceType"] == .string("OperationOutcome"), "\(type)/$validate")
            case "everything":
                #expect(type == "Patient")
                let everything = try await fixture.send(.GET, "Patient/p1/$everything", token: token)
                #expect(everything.status == 200 && everything.json["type"] == .string("searchset"))
            case "export":
                #expect(type == "Patient")
                let kickoff = try await fixture.send(.GET, "Patient/$export", token: token, headers: [("Prefer", "respond-async")])
                #expect(kickoff.status == 202 || kickoff.status == 403, "Patient/$export: \(kickoff.status)")
                // The job is not needed: cancelled (its files deleted).
                if let location = Rest.header(kickoff.headers, "Content-Location") {
                    let url = location.replacingOccurrences(of: TestWorld.base, with: fixture.server.baseURL)
                    #expect(try await HTTPExchange.send(.DELETE, url, headers: [("Authorization", "Bearer \(token)")]).status == 202)
                }
            default:
                Issue.record("\(type) declares an operation the walk does not know: \(name)")
            }
            tried += 1
        }
        // Undeclared operations are not answered.
        #expect(try await fixture.send(.POST, "\(type)/\(id)/$meta", token: token).status >= 400)

        // delete, last: then the resource is gone.
        #expect(try await fixture.send(.DELETE, path, token: token).status == 204, "\(type) delete")
        #expect(try await fixture.send(.GET, path, token: token).status == 410, "\(type) deleted")
        #expect(try await fixture.send(.PATCH, path, token: token, body: "[]").status >= 400, "\(type) patch")
        return tried + 1
    }

    /// A stored type the walk writes no resource of: the same interactions as every stored type;
    /// a read of an unknown id is 404 (a stored type, not 405), its type history answers, each
    /// declared search parameter and `_include` is answered as supported (an unknown one is
    /// 400), and `$validate` answers an OperationOutcome; returns how many it tried.
    func checkSearched(_ fixture: Fixture, type: String, resource: JSONObject, interactions: Set<String>) async throws -> Int {
        let token = fixture.walletToken
        var tried = 0
        #expect(Set(["create", "read", "vread", "update", "history-instance", "history-type", "search-type", "delete"]) == interactions,
                "\(type): \(interactions)")
        #expect(try await fixture.send(.GET, "\(type)/no-such-id", token: token).status == 404, "\(type) read")
        #expect(try await fixture.send(.GET, type + "/_history", token: token).json["type"] == .string("history"), "\(type) history-type")
        #expect(Self.searched(try await fixture.send(.GET, type, token: token)), "\(type) search-type")
        let strict = [("Prefer", "handling=strict")]
        for parameter in resource["searchParam"]?.arrayValue ?? [] {
            let name = try #require(parameter.objectValue?["name"]?.stringValue)
            let kind = try #require(parameter.objectValue?["type"]?.stringValue)
            #expect(["token", "date", "reference", "string"].contains(kind), "\(type)?\(name): \(kind)")
            let value = Self.value(ofType: kind).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let response = try await fixture.send(.GET, "\(type)?\(name)=\(value)", token: token, headers: strict)
            #expect(Self.searched(response), "\(type)?\(name)=\(value): \(response.status) \(response.json)")
            tried += 1
        }
        #expect(try await fixture.send(.GET, "\(type)?no-such-parameter=1", token: token, headers: strict).status == 400, "\(type) unknown parameter")
        for value in resource["searchInclude"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
            let response = try await fixture.send(.GET, "\(type)?_include=\(value)", token: token)
            #expect(Self.searched(response), "\(type)?_include=\(value): \(response.status)")
            tried += 1
        }
        let operations = resource["operation"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } ?? []
        #expect(operations == ["validate"], "\(type): \(operations)")
        let validated = try await fixture.send(.POST, "\(type)/$validate", token: token, body: Self.minimal(type))
        #expect(validated.status == 200 && validated.json["resourceType"] == .string("OperationOutcome"), "\(type)/$validate")
        return tried + 4
    }

    /// Group: created by a client for export, read back by it (others get 404), nothing else.
    func checkGroup(_ fixture: Fixture, interactions: Set<String>, operations: JSONValue?) async throws {
        #expect(interactions == ["read", "create"])
        #expect(operations?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } == ["export"])
        let world = fixture.world
        let app = try await world.register(.app("exporter"))
        let other = try await world.register(.app("other"))
        for party in [app, other] {
            #expect(try await world.grant(from: fixture.wallet, to: [party], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
        }
        func token(_ party: TestParty) async throws -> String {
            try #require(world.json(try await world.clientCredentials(party, scope: "patient/Observation.rs", patient: fixture.wallet))["access_token"]?
                .stringValue)
        }
        let appToken = try await token(app)
        let otherToken = try await token(other)
        let body = #"{"resourceType":"Group","type":"person","actual":true,"member":[{"entity":{"reference":"Patient/\#(fixture.wallet.csi.rawValue)"}}]}"#
        let created = try await fixture.send(.POST, "Group", token: appToken, body: body)
        #expect(created.status == 201)
        let id = try #require(created.json["id"]?.stringValue)
        let read = try await fixture.send(.GET, "Group/\(id)", token: appToken)
        #expect(read.status == 200 && read.json == created.json, "\(read.status) \(read.json)")
        // Another client, the patient's own wallet, an unknown id: 404 alike.
        #expect(try await fixture.send(.GET, "Group/\(id)", token: otherToken).status == 404)
        #expect(try await fixture.send(.GET, "Group/\(id)", token: fixture.walletToken).status == 404)
        #expect(try await fixture.send(.GET, "Group/0123456789abcdef", token: appToken).status == 404)
        #expect(try await fixture.send(.GET, "Group/\(id)", token: nil).status == 401)
        // Undeclared: search, history, vread, update, delete.
        for (method, path) in [(HTTPMethod.GET, "Group"), (.GET, "Group/_history"), (.GET, "Group/\(id)/_history"), (.GET, "Group/\(id)/_history/1"),
                               (.DELETE, "Group/\(id)")] {
            #expect(try await fixture.send(method, path, token: appToken).status >= 400, "\(method) \(path)")
        }
        let update = body.replacingOccurrences(of: #"{"resourceType""#, with: #"{"id":"\#(id)","resourceType""#)
        #expect(try await fixture.send(.PUT, "Group/\(id)", token: appToken, body: update).status >= 400)
        // The Group still reads as created.
        #expect(try await fixture.send(.GET, "Group/\(id)", token: appToken).json == created.json)
    }
}
