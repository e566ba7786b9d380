import ExactJSON
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// Every way into the FHIR endpoint beside the read, over real HTTP to the server on
/// 127.0.0.1, on every store, leaves exactly the audit entries it should (who, whose data,
/// success or refusal, the action, the resources): `vread`, instance and type `_history`,
/// search with `_include`, `_revinclude`, `_summary=count` and `_elements`, conditional create
/// and update, `If-Match`, `batch` and `transaction` Bundles, `$validate`, `Patient/$everything`
/// and a Bulk Data export. A refused attempt (a type the grant does not cover, another patient's
/// resource, a resource hidden by its label) is audited as refused and answers as an absent
/// resource does. And a SMART Backend Services token (`system/*.rs`) reads and searches the
/// data of the patients that granted its client, audited under each patient, and nothing else.
@Suite struct AuditedWaysInTests {
    /// One audit entry of a FHIR access, as the tests compare it.
    struct Logged: Equatable, CustomStringConvertible {
        var agent: String
        var patient: String?
        var outcome: AuditOutcome
        var action: String
        var resources: [String]
        var reason: String?

        init(agent: String, patient: String?, outcome: AuditOutcome = .success, action: String = "R", resources: [String], reason: String? = nil) {
            self.agent = agent
            self.patient = patient
            self.outcome = outcome
            self.action = action
            self.resources = resources.sorted()
            self.reason = reason
        }

        init(_ entry: AuditEntry) {
            self.init(agent: entry.agent, patient: entry.patient, outcome: entry.outcome, action: entry.action, resources: entry.resources,
                      reason: entry.reason)
        }

        var description: String {
            "\(action) \(outcome) by \(agent.prefix(8)) on \(patient?.prefix(8) ?? "-") \(resources) \(reason ?? "")"
        }
    }

    /// The FHIR access entries appended to the log since the last `take()`.
    struct AuditTail {
        let store: any AuditStore
        var next = 0

        init(_ store: any AuditStore) async throws {
            self.store = store
            _ = try await take()
        }

        mutating func take() async throws -> [AuditEntry] {
            var entries: [AuditEntry] = []
            while true {
                let page = try await store.auditRecords(from: next, limit: 1000)
                for record in page {
                    let entry = try AuditEntry(canonicalBytes: record.canonicalBytes)
                    if entry.type == .fhirAccess { entries.append(entry) }
                    next = record.index + 1
                }
                if page.count < 1000 { return entries }
            }
        }

        mutating func logged() async throws -> [Logged] { try await take().map { Logged($0) } }
    }

    /// Expects the FHIR access entries appended since the last look to be `expected`.
    static func check(_ tail: inout AuditTail, _ expected: [Logged], _ comment: String = "") async throws {
        let logged = try await tail.logged()
        #expect(logged == expected, "\(comment) \(logged)")
    }

    struct Answer {
        let status: Int
        let headers: [(String, String)]
        let body: [UInt8]
        var json: JSONObject { (try? JSONParser.parse(body))?.objectValue ?? JSONObject() }
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    static func send(_ server: RunningServer, _ method: HTTPMethod, _ path: String, token: String, body: String? = nil,
                     headers: [(String, String)] = []) async throws -> Answer {
        var all = headers + [("Authorization", "Bearer \(token)")]
        if body != nil { all.append(("Content-Type", "application/fhir+json")) }
        let answer = try await HTTPExchange.send(method, "\(server.baseURL)/fhir/\(path)", headers: all, body: body.map { Array($0.utf8) })
        return Answer(status: answer.status, headers: answer.headers, body: answer.body)
    }

    /// Whether a refusal's body is an absent resource's, but for the id each names.
    static func sameAsAbsent(_ refused: Answer, _ absent: Answer, id: String, absentID: String) -> Bool {
        refused.status == absent.status && refused.text.replacingOccurrences(of: id, with: "X") == absent.text.replacingOccurrences(of: absentID, with: "X")
    }

    /// The `Type/id` of a Bundle's entries' resources, sorted.
    static func resources(_ bundle: JSONObject) -> [String] {
        (bundle["entry"]?.arrayValue ?? []).compactMap { entry -> String? in
            guard let resource = entry.objectValue?["resource"]?.objectValue else { return nil }
            return "\(resource["resourceType"]?.stringValue ?? "")/\(resource["id"]?.stringValue ?? "")"
        }.sorted()
    }

    // MARK: A grantee's ways in

    @Test(arguments: TestBackend.available)
    func everyWayInIsAuditedAndARefusalRevealsNothing(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let otherWallet = try await world.register(.wallet("w2", firstName: "B"))
            let app = try await world.register(.app("a"))
            let owner = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            let otherOwner = try #require(world.json(try await world.clientCredentials(otherWallet, scope: "patient/*.cruds conf/V"))["access_token"]?
                .stringValue)
            // The wallet's Observations: obs-1, obs-2 (its members obs-1 and the restricted secret), and secret; the other wallet's other-1.
            for (id, token, label, extra) in [
                ("obs-1", owner, nil, ""), ("secret", owner, "R", ""),
                ("obs-2", owner, nil, #","hasMember":[{"reference":"Observation/obs-1"},{"reference":"Observation/secret"}]"#),
                ("other-1", otherOwner, nil, ""),
            ] as [(String, String, String?, String)] {
                let put = try await Self.send(server, .PUT, "Observation/\(id)", token: token, body: FHIRRestTests.observation(id, label: label, extra: extra))
                try #require(put.status == 201, "PUT \(id): \(put.text)")
            }
            // The app may read and write the wallet's Observations up to N.
            #expect(try await world.grant(from: wallet, to: [app], resource: "Observation", access: "cruds", confidentiality: "N", sensitivity: [])
                .status == 200)
            let token = try await world.vacaToken(app, scope: "patient/Observation.cruds conf/N")
            let patient = wallet.csi.rawValue
            func ok(_ resources: [String], action: String = "R") -> Logged {
                Logged(agent: app.csi.rawValue, patient: patient, action: action, resources: resources)
            }
            func refused(_ resources: [String], _ reason: String, action: String = "R") -> Logged {
                Logged(agent: app.csi.rawValue, patient: patient, outcome: .minorFailure, action: action, resources: resources, reason: reason)
            }
            var tail = try await AuditTail(world.store)

            // Reads of what the token may see, one entry each, naming what was disclosed.
            let reads: [(String, [String], Int)] = [
                ("Observation/obs-1", ["Observation/obs-1"], 1),
                ("Observation/obs-1/_history/1", ["Observation/obs-1/_history/1"], 1),
                ("Observation/obs-1/_history", ["Observation/obs-1/_history/1"], 1),
                ("Observation/_history", ["Observation/obs-1/_history/1", "Observation/obs-2/_history/1"], 2),
                ("Observation", ["Observation/obs-1", "Observation/obs-2"], 2),
                ("Observation?_id=obs-2&_include=Observation:has-member", ["Observation/obs-1", "Observation/obs-2"], 2),
                ("Observation?_id=obs-1&_revinclude=Observation:has-member", ["Observation/obs-1", "Observation/obs-2"], 2),
                ("Observation?_summary=count", ["Observation"], 0),
                ("Observation?_elements=status", ["Observation/obs-1", "Observation/obs-2"], 2),
                ("Patient/\(patient)/$everything", ["Observation/obs-1", "Observation/obs-2"], 2),
            ]
            for (path, disclosed, count) in reads {
                let answer = try await Self.send(server, .GET, path, token: token)
                #expect(answer.status == 200, "\(path): \(answer.text)")
                #expect(!answer.text.contains("\"secret\"") && !answer.text.contains("other-1"), "\(path) disclosed a hidden resource")
                if answer.json["resourceType"] == .string("Bundle"), !path.hasPrefix("Observation?_summary") {
                    #expect(Self.resources(answer.json).count == count, "\(path): \(answer.text)")
                }
                try await Self.check(&tail, [ok(disclosed)], "\(path)")
            }

            // Conditional create: the one match is returned (a read); no match creates (C).
            let existing = try await Self.send(server, .POST, "Observation", token: token, body: FHIRRestTests.observation("x"),
                                               headers: [("If-None-Exist", "_id=obs-1")])
            #expect(existing.status == 200 && existing.json["id"] == .string("obs-1"), "\(existing.text)")
            try await Self.check(&tail, [ok(["Observation/obs-1"])])
            let created = try await Self.send(server, .POST, "Observation", token: token, body: FHIRRestTests.observation("x"),
                                              headers: [("If-None-Exist", "_id=nothing-here")])
            let createdID = try #require(created.json["id"]?.stringValue, "\(created.text)")
            #expect(created.status == 201)
            try await Self.check(&tail, [ok(["Observation/\(createdID)"], action: "C")])
            // A condition matching only the hidden secret matches nothing: a create, never the secret.
            let besideSecret = try await Self.send(server, .POST, "Observation", token: token, body: FHIRRestTests.observation("x"),
                                                   headers: [("If-None-Exist", "_id=secret")])
            let besideID = try #require(besideSecret.json["id"]?.stringValue)
            #expect(besideSecret.status == 201 && besideID != "secret" && !besideSecret.text.contains("\"secret\""))
            try await Self.check(&tail, [ok(["Observation/\(besideID)"], action: "C")])

            // Conditional update, then If-Match: current (U) and stale (412, refused).
            let conditional = try await Self.send(server, .PUT, "Observation?_id=obs-1", token: token, body: FHIRRestTests.observation("obs-1"))
            #expect(conditional.status == 200 && conditional.json["meta"]?.objectValue?["versionId"] == .string("2"), "\(conditional.text)")
            try await Self.check(&tail, [ok(["Observation/obs-1"], action: "U")])
            let matched = try await Self.send(server, .PUT, "Observation/obs-1", token: token, body: FHIRRestTests.observation("obs-1"),
                                              headers: [("If-Match", "W/\"2\"")])
            #expect(matched.status == 200, "\(matched.text)")
            try await Self.check(&tail, [ok(["Observation/obs-1"], action: "U")])
            let stale = try await Self.send(server, .PUT, "Observation/obs-1", token: token, body: FHIRRestTests.observation("obs-1"),
                                            headers: [("If-Match", "W/\"2\"")])
            #expect(stale.status == 412)
            try await Self.check(&tail, [refused(["Observation/obs-1"], "precondition_failed", action: "U")])

            // A batch: each entry audited as the request on its own (the hidden secret as absent).
            let batch = #"{"resourceType":"Bundle","type":"batch","entry":[{"request":{"method":"GET","url":"Observation/obs-1"}},"#
                + #"{"request":{"method":"GET","url":"Observation/secret"}}]}"#
            let batchAnswer = try await Self.send(server, .POST, "", token: token, body: batch)
            #expect(batchAnswer.status == 200 && batchAnswer.json["type"] == .string("batch-response"), "\(batchAnswer.text)")
            #expect(!batchAnswer.text.contains("\"R\"") && batchAnswer.text.contains("404"), "\(batchAnswer.text)")
            try await Self.check(&tail, [ok(["Observation/obs-1"]), refused(["Observation/secret"], "not-found")])

            // A transaction: its writes' entries, committed with them; one refused entry stores nothing and is audited refused.
            let entry = FHIRRestTests.observation("t", subject: "Patient/p1")
            let transaction = #"{"resourceType":"Bundle","type":"transaction","entry":[{"fullUrl":"urn:uuid:1b4e28ba-2fa1-41d2-883f-0016d3cca427","#
                + #""resource":\#(entry),"request":{"method":"POST","url":"Observation"}}]}"#
            let stored = try await Self.send(server, .POST, "", token: token, body: transaction)
            #expect(stored.status == 200 && stored.json["type"] == .string("transaction-response"), "\(stored.text)")
            let written = try await tail.logged()
            #expect(written.count == 1 && written.first?.action == "C" && written.first?.outcome == .success
                && written.first?.resources.first?.hasPrefix("Observation/") == true && written.first?.patient == patient
                && written.first?.agent == app.csi.rawValue, "\(written)")
            let labelled = FHIRRestTests.observation("t2", label: "R")
            let refusedTransaction = #"{"resourceType":"Bundle","type":"transaction","entry":[{"resource":\#(entry),"#
                + #""request":{"method":"POST","url":"Observation"}},{"resource":\#(labelled),"request":{"method":"POST","url":"Observation"}}]}"#
            let before = try await Self.send(server, .GET, "Observation?_summary=count", token: owner)
            _ = try await tail.take()
            let notStored = try await Self.send(server, .POST, "", token: token, body: refusedTransaction)
            #expect(notStored.status == 403, "\(notStored.text)")
            let refusal = try await tail.logged()
            #expect(refusal.count == 1 && refusal.first?.outcome == .minorFailure && refusal.first?.reason == "insufficient_labels"
                && refusal.first?.action == "C", "\(refusal)")
            let after = try await Self.send(server, .GET, "Observation?_summary=count", token: owner)
            #expect(after.json["total"] == before.json["total"], "nothing of the refused transaction is stored")
            _ = try await tail.take()

            // $validate: an E entry of the type (nothing stored is read).
            let validated = try await Self.send(server, .POST, "Observation/$validate", token: token, body: FHIRRestTests.observation("v"))
            #expect(validated.status == 200 && validated.json["resourceType"] == .string("OperationOutcome"), "\(validated.text)")
            try await Self.check(&tail, [ok(["Observation"], action: "E")])

            // Refusals. An absent resource, for comparison.
            let absent = try await Self.send(server, .GET, "Observation/absent", token: token)
            #expect(absent.status == 404)
            try await Self.check(&tail, [refused(["Observation/absent"], "not-found")])
            // Another patient's resource and a label-hidden one answer as the absent one, audited refused.
            for id in ["other-1", "secret"] {
                let read = try await Self.send(server, .GET, "Observation/\(id)", token: token)
                #expect(Self.sameAsAbsent(read, absent, id: id, absentID: "absent"), "\(id): \(read.text)")
                try await Self.check(&tail, [refused(["Observation/\(id)"], "not-found")], "read \(id)")
                let vread = try await Self.send(server, .GET, "Observation/\(id)/_history/1", token: token)
                #expect(vread.status == 404 && !vread.text.contains("\"Observation\""), "\(id): \(vread.text)")
                try await Self.check(&tail, [refused(["Observation/\(id)"], "not-found")], "vread \(id)")
                let history = try await Self.send(server, .GET, "Observation/\(id)/_history", token: token)
                #expect(history.status == 404 && !history.text.contains("\"Observation\""), "\(id): \(history.text)")
                try await Self.check(&tail, [refused(["Observation/\(id)"], "not-found")], "history \(id)")
                // A search for it finds nothing, and the entry names nothing.
                let search = try await Self.send(server, .GET, "Observation?_id=\(id)", token: token)
                #expect(search.status == 200 && search.json["total"] == .number("0") && search.json["entry"] == nil, "\(id): \(search.text)")
                try await Self.check(&tail, [ok(["Observation"])], "search \(id)")
            }
            // Another patient's compartment: $everything 404, a search naming it an empty Bundle; both audited refused.
            let everything = try await Self.send(server, .GET, "Patient/\(otherWallet.csi.rawValue)/$everything", token: token)
            #expect(everything.status == 404 && !everything.text.contains("other-1"))
            try await Self.check(&tail, [refused(["Patient/\(otherWallet.csi.rawValue)"], "not-found")])
            let elsewhere = try await Self.send(server, .GET, "Observation?patient=\(otherWallet.csi.rawValue)", token: token)
            #expect(elsewhere.status == 200 && elsewhere.json["total"] == .number("0") && elsewhere.json["entry"] == nil, "\(elsewhere.text)")
            try await Self.check(&tail, [refused(["Observation"], "other-compartment")])
            // A type the grant does not cover: 403 on each way in, audited refused.
            for (method, path, headers, resource) in [
                (HTTPMethod.GET, "Condition/c1", [], "Condition/c1"), (.GET, "Condition", [], "Condition"),
                (.GET, "Condition/c1/_history/1", [], "Condition/c1"), (.GET, "Condition/c1/_history", [], "Condition/c1"),
                (.GET, "Condition/_history", [], "Condition"),
                (.POST, "Condition", [("If-None-Exist", "_id=c1")], "Condition"),
            ] as [(HTTPMethod, String, [(String, String)], String)] {
                let body = method == .POST ? #"{"resourceType":"Condition","subject":{"reference":"Patient/p1"}}"# : nil
                let answer = try await Self.send(server, method, path, token: token, body: body, headers: headers)
                #expect(answer.status == 403, "\(path): \(answer.text)")
                try await Self.check(&tail, [refused([resource], "insufficient_scope")], "\(method) \(path)")
            }

            // A Bulk Data export with the app's token: one entry for the patient, with the counts, once the job is done.
            let kickoff = try await BulkExportTests.send(server, .GET, "/fhir/Patient/$export", token: token, headers: BulkExportTests.kickoffHeaders)
            try #require(kickoff.status == 202, "\(String(decoding: kickoff.body, as: UTF8.self))")
            let manifest = try await BulkExportTests.manifest(server, try #require(BulkExportTests.header(kickoff, "Content-Location")), token: token)
            let exported = try await BulkExportTests.download(server, manifest, token: token)
            #expect(!exported.contains("Observation/secret") && !exported.contains("Observation/other-1") && exported.contains("Observation/obs-1"))
            let exportEntries = try await tail.logged()
            #expect(exportEntries == [Logged(agent: app.csi.rawValue, patient: patient, resources: ["Observation"],
                                             reason: "bulk-export Observation=\(exported.count)")], "\(exportEntries)")
            // Refused kick-offs: the system level (auditors only) and an unknown Group, each audited refused.
            let systemLevel = try await BulkExportTests.send(server, .GET, "/fhir/$export", token: token, headers: BulkExportTests.kickoffHeaders)
            #expect(systemLevel.status == 403)
            try await Self.check(&tail, [refused(["$export"], "not_an_auditor")])
            let unknownGroup = try await BulkExportTests.send(server, .GET, "/fhir/Group/nope/$export", token: token, headers: BulkExportTests.kickoffHeaders)
            #expect(unknownGroup.status == 404)
            try await Self.check(&tail, [refused(["Group/nope/$export"], "not-found")])
        }
    }

    // MARK: A backend client's plain REST

    /// The backend world: `BackendServicesTests.seed`'s three wallets (w1's `obs-1`, `con-1`,
    /// and its restricted `sec-1`; w2's `obs-2`, `con-2`; w3's), a backend client w1 granted
    /// its Observations up to N (w2 granted another app only), and the client's `system/*.rs` token.
    static func backendWorld(_ world: TestWorld, _ server: RunningServer) async throws -> (wallets: [TestParty], client: CsiGuid, token: String) {
        let (wallets, other) = try await BackendServicesTests.seed(world)
        // w1's restricted Observation, which a grant up to N does not cover.
        var change = TrustChange()
        change.resources = [FHIRResourceWrite(record: FHIRResourceRecord(type: "Observation", id: "sec-1", patient: wallets[0].csi, versionID: 1,
                                                                         lastUpdated: world.now,
                                                                         json: BulkExportTests.resource("Observation", "sec-1", label: "R")))]
        try await world.store.commit(change)
        let key = try BackendTestKey.es256("k1")
        let client = try await BackendServicesTests.register(server, ["jwks": .object(JSONObject(members: [
            JSONMember(key: "keys", value: .array([key.jwk])),
        ]))])
        var party = TestParty.app("backend")
        party.csi = client
        // w1 grants the backend client its Observations up to N; w2 grants another app only.
        #expect(try await world.grant(from: wallets[0], to: [party], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
        #expect(try await world.grant(from: wallets[1], to: [other], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
        let answer = try await BackendServicesTests.token(server, key.assertion(client: client, audience: TestWorld.base + "/oauth/token",
                                                                                 now: world.now), scope: "system/*.rs")
        try #require(answer.status == 200, "\(answer)")
        let token = try #require(answer.json["access_token"]?.stringValue)
        return (wallets, client, token)
    }

    @Test(arguments: TestBackend.available)
    func aSystemTokenReadsAndSearchesWhatPatientsGrantedItsClientAndNothingElse(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let (wallets, client, token) = try await Self.backendWorld(world, server)
            let granting = wallets[0].csi.rawValue
            var tail = try await AuditTail(world.store)

            // The granting patient's Observation: read by id, audited under that patient.
            let read = try await Self.send(server, .GET, "Observation/obs-1", token: token)
            #expect(read.status == 200 && read.json["id"] == .string("obs-1"), "\(read.text)")
            try await Self.check(&tail, [Logged(agent: client.rawValue, patient: granting, resources: ["Observation/obs-1"])])
            // Searched by the patient (its csiGuid, plain or as a reference).
            for parameter in [granting, "Patient/\(granting)"] {
                let search = try await Self.send(server, .GET, "Observation?patient=\(parameter)", token: token)
                #expect(search.status == 200 && Self.resources(search.json) == ["Observation/obs-1"] && search.json["total"] == .number("1"),
                        "\(search.text)")
                try await Self.check(&tail, [Logged(agent: client.rawValue, patient: granting, resources: ["Observation/obs-1"])])
            }

            // Nothing else: the non-granting patient's Observation, the restricted one, an ungranted type, an absent one all answer alike.
            let absent = try await Self.send(server, .GET, "Observation/absent", token: token)
            #expect(absent.status == 404)
            try await Self.check(&tail, [Logged(agent: client.rawValue, patient: client.rawValue, outcome: .minorFailure,
                                                       resources: ["Observation/absent"], reason: "not-found")])
            for (type, id) in [("Observation", "obs-2"), ("Observation", "sec-1"), ("Condition", "con-1")] {
                let refused = try await Self.send(server, .GET, "\(type)/\(id)", token: token)
                #expect(refused.status == 404 && refused.text.replacingOccurrences(of: "\(type)/\(id)", with: "X")
                    == absent.text.replacingOccurrences(of: "Observation/absent", with: "X"), "\(type)/\(id): \(refused.text)")
                try await Self.check(&tail, [Logged(agent: client.rawValue, patient: client.rawValue, outcome: .minorFailure,
                                                           resources: ["\(type)/\(id)"], reason: "not-found")], "\(type)/\(id)")
            }
            let elsewhere = try await Self.send(server, .GET, "Observation?patient=\(wallets[1].csi.rawValue)", token: token)
            #expect(elsewhere.status == 200 && elsewhere.json["total"] == .number("0") && elsewhere.json["entry"] == nil, "\(elsewhere.text)")
            try await Self.check(&tail, [Logged(agent: client.rawValue, patient: client.rawValue, outcome: .minorFailure,
                                                       resources: ["Observation"], reason: "other-compartment")])
            let conditions = try await Self.send(server, .GET, "Condition?patient=\(granting)", token: token)
            // The token's scope covers Condition, the granting patient's grants do not: refused as that patient's token would be.
            #expect(conditions.status == 403 && conditions.json["resourceType"] == .string("OperationOutcome"), "\(conditions.text)")
            try await Self.check(&tail, [Logged(agent: client.rawValue, patient: granting, outcome: .minorFailure, resources: ["Condition"],
                                                reason: "insufficient_scope")])
        }
    }

    @Test(arguments: TestBackend.available)
    func aSystemTokenReachesVersionsHistoryAndEverythingOnlyThroughTheGrantingPatientAndMustNameOneToSearch(backend: TestBackend)
        async throws {
        let world = try await TestWorld.make(backend)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let (wallets, client, token) = try await Self.backendWorld(world, server)
            // w1 writes obs-1's second version.
            let owner = try #require(world.json(try await world.clientCredentials(wallets[0], scope: "patient/*.cruds conf/V"))["access_token"]?
                .stringValue)
            let put = try await Self.send(server, .PUT, "Observation/obs-1", token: owner, body: FHIRRestTests.observation("obs-1"))
            try #require(put.status == 200, "\(put.text)")
            let granting = wallets[0].csi.rawValue
            func ok(_ resources: [String]) -> Logged { Logged(agent: client.rawValue, patient: granting, resources: resources) }
            func refused(_ resources: [String], _ reason: String) -> Logged {
                Logged(agent: client.rawValue, patient: client.rawValue, outcome: .minorFailure, resources: resources, reason: reason)
            }
            var tail = try await AuditTail(world.store)

            // vread and the instance history of the granting patient's Observation, audited under that patient.
            for version in [1, 2] {
                let vread = try await Self.send(server, .GET, "Observation/obs-1/_history/\(version)", token: token)
                #expect(vread.status == 200 && vread.json["id"] == .string("obs-1") && vread.header("ETag") == "W/\"\(version)\"", "\(vread.text)")
                try await Self.check(&tail, [ok(["Observation/obs-1/_history/\(version)"])], "vread \(version)")
            }
            let history = try await Self.send(server, .GET, "Observation/obs-1/_history", token: token)
            let versions = (history.json["entry"]?.arrayValue ?? []).compactMap { $0.objectValue?["response"]?.objectValue?["etag"]?.stringValue }
            #expect(history.status == 200 && versions == ["W/\"2\"", "W/\"1\""], "\(history.text)")
            try await Self.check(&tail, [ok(["Observation/obs-1/_history/1", "Observation/obs-1/_history/2"])], "history")

            // Nothing else: the non-granting patient's Observation, the restricted one, an ungranted type and an absent one answer alike.
            let absentVersion = try await Self.send(server, .GET, "Observation/absent/_history/1", token: token)
            let absentHistory = try await Self.send(server, .GET, "Observation/absent/_history", token: token)
            #expect(absentVersion.status == 404 && absentHistory.status == 404)
            try await Self.check(&tail, [refused(["Observation/absent"], "not-found"), refused(["Observation/absent"], "not-found")])
            for (type, id) in [("Observation", "obs-2"), ("Observation", "sec-1"), ("Condition", "con-1")] {
                let vread = try await Self.send(server, .GET, "\(type)/\(id)/_history/1", token: token)
                #expect(Self.sameAsAbsent(vread, absentVersion, id: "\(type)/\(id)", absentID: "Observation/absent"), "\(type)/\(id): \(vread.text)")
                let history = try await Self.send(server, .GET, "\(type)/\(id)/_history", token: token)
                #expect(Self.sameAsAbsent(history, absentHistory, id: "\(type)/\(id)", absentID: "Observation/absent"), "\(type)/\(id): \(history.text)")
                try await Self.check(&tail, [refused(["\(type)/\(id)"], "not-found"), refused(["\(type)/\(id)"], "not-found")], "\(type)/\(id)")
            }

            // $everything of the granting patient: what its grants let the client read (not sec-1, not con-1).
            let everything = try await Self.send(server, .GET, "Patient/\(granting)/$everything", token: token)
            #expect(everything.status == 200 && Self.resources(everything.json) == ["Observation/obs-1"], "\(everything.text)")
            try await Self.check(&tail, [ok(["Observation/obs-1"])], "$everything")
            let unknown = "00000000-0000-4000-8000-000000000000"
            let absentEverything = try await Self.send(server, .GET, "Patient/\(unknown)/$everything", token: token)
            #expect(absentEverything.status == 404)
            try await Self.check(&tail, [refused(["Patient/\(unknown)"], "not-found")])
            for wallet in wallets.dropFirst() {
                let refusedEverything = try await Self.send(server, .GET, "Patient/\(wallet.csi.rawValue)/$everything", token: token)
                #expect(Self.sameAsAbsent(refusedEverything, absentEverything, id: wallet.csi.rawValue, absentID: unknown), "\(refusedEverything.text)")
                try await Self.check(&tail, [refused(["Patient/\(wallet.csi.rawValue)"], "not-found")])
            }

            // A search or a type history naming no patient is 400, audited as refused; naming the granting one, it runs there.
            for path in ["Observation?code=http://loinc.org%7C8867-4", "Observation", "Observation/_history"] {
                let answer = try await Self.send(server, .GET, path, token: token)
                #expect(answer.status == 400 && answer.json["resourceType"] == .string("OperationOutcome") && answer.text.contains("patient="),
                        "\(path): \(answer.text)")
                try await Self.check(&tail, [refused(["Observation"], "patient-required")], path)
            }
            let named = try await Self.send(server, .GET, "Observation?code=http://loinc.org%7C8867-4&patient=\(granting)", token: token)
            #expect(named.status == 200 && Self.resources(named.json) == ["Observation/obs-1"], "\(named.text)")
            try await Self.check(&tail, [ok(["Observation/obs-1"])])
        }
    }
}
