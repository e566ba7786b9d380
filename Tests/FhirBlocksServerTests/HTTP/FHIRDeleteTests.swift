import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// `DELETE /fhir/{type}/{id}` over real HTTP to the server on 127.0.0.1, on every store: 204,
/// `If-Match` (412 on a stale version), a deleted resource reads as 410 and is found by no
/// search, its history lists the deletion after the versions `vread` still serves, a PUT
/// creates it again with the next version; the scope and label filters of writes; audited;
/// DELETE entries in batches and in atomic transactions.
@Suite struct FHIRDeleteTests {
    typealias Rest = FHIRRestTests

    static func versions(_ bundle: JSONObject) -> [String] {
        (bundle["entry"]?.arrayValue ?? []).compactMap { entry -> String? in
            guard let object = entry.objectValue else { return nil }
            let method = object["request"]?.objectValue?["method"]?.stringValue ?? ""
            let version = object["response"]?.objectValue?["etag"]?.stringValue ?? ""
            return "\(method) \(version)"
        }
    }

    @Test(arguments: TestBackend.available)
    func deleteLeavesAGoneResourceWithItsHistory(backend: TestBackend) async throws {
        try await Rest.with(backend) { fixture in
            let token = fixture.walletToken
            try await fixture.put([Rest.patient, Rest.observation("o1"), Rest.observation("o2")])
            fixture.world.clock.advance(seconds: 60)
            let amended = Rest.observation("o1").replacingOccurrences(of: #""status":"final""#, with: #""status":"amended""#)
            #expect(try await fixture.send(.PUT, "Observation/o1", token: token, body: amended).status == 200)

            // A stale If-Match: 412, nothing deleted.
            let stale = try await fixture.send(.DELETE, "Observation/o1", token: token, headers: [("If-Match", "W/\"1\"")])
            #expect(stale.status == 412 && stale.json["resourceType"] == .string("OperationOutcome"))
            #expect(try await fixture.send(.GET, "Observation/o1", token: token).status == 200)

            // The current version named: 204 with the deletion's version as ETag.
            fixture.world.clock.advance(seconds: 60)
            let deleted = try await fixture.send(.DELETE, "Observation/o1", token: token, headers: [("If-Match", "W/\"2\"")])
            #expect(deleted.status == 204 && Rest.header(deleted.headers, "ETag") == "W/\"3\"")
            let gone = try await fixture.send(.GET, "Observation/o1", token: token)
            #expect(gone.status == 410 && gone.json["resourceType"] == .string("OperationOutcome"))
            // No search finds it; the other resource is still there.
            #expect(try await fixture.send(.GET, "Observation?_id=o1", token: token).json["total"] == .number("0"))
            #expect(try await fixture.send(.GET, "Observation?code=http://loinc.org|8867-4&_summary=count", token: token).json["total"] == .number("1"))
            let everything = try await fixture.send(.GET, "Patient/p1/$everything", token: token)
            #expect(Rest.entries(everything.json, mode: "match").contains("Observation/o2"))
            #expect(!Rest.entries(everything.json, mode: "match").contains("Observation/o1"))

            // vread still serves the versions before; the deletion's version is 410.
            #expect(try await fixture.send(.GET, "Observation/o1/_history/1", token: token).json["status"] == .string("final"))
            #expect(try await fixture.send(.GET, "Observation/o1/_history/2", token: token).json["status"] == .string("amended"))
            #expect(try await fixture.send(.GET, "Observation/o1/_history/3", token: token).status == 410)
            // The history: the deletion first (no resource), then the versions.
            let history = try await fixture.send(.GET, "Observation/o1/_history", token: token)
            #expect(history.status == 200 && history.json["total"] == .number("3"))
            #expect(Self.versions(history.json) == ["DELETE W/\"3\"", "PUT W/\"2\"", "POST W/\"1\""], "\(Self.versions(history.json))")
            #expect(history.json["entry"]?.arrayValue?.first?.objectValue?["resource"] == nil)
            let typeHistory = try await fixture.send(.GET, "Observation/_history", token: token)
            #expect(Self.versions(typeHistory.json).first == "DELETE W/\"3\"" && typeHistory.json["total"] == .number("4"))

            // Deleting again changes nothing (204); an unknown id is 404; If-Match on a deleted one 412.
            #expect(try await fixture.send(.DELETE, "Observation/o1", token: token).status == 204)
            #expect(try await fixture.send(.DELETE, "Observation/never", token: token).status == 404)
            #expect(try await fixture.send(.DELETE, "Observation/o1", token: token, headers: [("If-Match", "W/\"3\"")]).status == 412)
            #expect(try await fixture.send(.GET, "Observation/o1/_history", token: token).json["total"] == .number("3"))

            // A PUT creates it again with the next version.
            fixture.world.clock.advance(seconds: 60)
            let again = try await fixture.send(.PUT, "Observation/o1", token: token, body: Rest.observation("o1"))
            #expect(again.status == 201 && again.json["meta"]?.objectValue?["versionId"] == .string("4"), "\(again.status) \(again.json)")
            #expect(try await fixture.send(.GET, "Observation/o1", token: token).status == 200)
            #expect(try await fixture.send(.GET, "Observation?_id=o1", token: token).json["total"] == .number("1"))
            let after = try await fixture.send(.GET, "Observation/o1/_history", token: token)
            #expect(Self.versions(after.json) == ["PUT W/\"4\"", "DELETE W/\"3\"", "PUT W/\"2\"", "POST W/\"1\""], "\(Self.versions(after.json))")

            // Every delete was audited with action D: the 412s as failures, the deletions as successes.
            let events = try await fixture.send(.GET, "AuditEvent", token: token)
            let deletes = (events.json["entry"]?.arrayValue ?? []).compactMap { $0.objectValue?["resource"]?.objectValue }
                .filter { $0["action"] == .string("D") }
            #expect(deletes.count == 5, "\(deletes.count)")
            #expect(deletes.contains { $0["outcome"] == .string("0") } && deletes.contains { $0["outcome"] == .string("4") })
            // Without a token: 401.
            #expect(try await fixture.send(.DELETE, "Observation/o2", token: nil).status == 401)
        }
    }

    @Test(arguments: TestBackend.available)
    func deletePassesTheScopeAndLabelFiltersOfWrites(backend: TestBackend) async throws {
        try await Rest.with(backend) { fixture in
            let world = fixture.world
            try await fixture.put([Rest.patient, Rest.observation("o1"), Rest.observation("o2"), Rest.observation("o3", label: "R")])
            let reader = try await world.register(.app("reader"))
            let deleter = try await world.register(.app("deleter"))
            #expect(try await world.grant(from: fixture.wallet, to: [reader], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
            #expect(try await world.grant(from: fixture.wallet, to: [deleter], resource: "Observation", access: "cruds", confidentiality: "N",
                                          sensitivity: []).status == 200)
            let readerToken = try await world.vacaToken(reader, scope: "patient/Observation.rs conf/N")
            let deleterToken = try await world.vacaToken(deleter, scope: "patient/Observation.cruds conf/N")
            // Read and search only: 403, nothing deleted.
            #expect(try await fixture.send(.DELETE, "Observation/o1", token: readerToken).status == 403)
            #expect(try await fixture.send(.GET, "Observation/o1", token: fixture.walletToken).status == 200)
            // A resource above the token's labels answers as an unknown one: 404, not deleted.
            #expect(try await fixture.send(.DELETE, "Observation/o3", token: deleterToken).status == 404)
            #expect(try await fixture.send(.GET, "Observation/o3", token: fixture.walletToken).status == 200)
            // Another type than granted: 403.
            #expect(try await fixture.send(.DELETE, "Patient/p1", token: deleterToken).status == 403)
            // What it may delete, it deletes; the reader then gets 410 as well.
            #expect(try await fixture.send(.DELETE, "Observation/o1", token: deleterToken).status == 204)
            #expect(try await fixture.send(.GET, "Observation/o1", token: readerToken).status == 410)
            // A grantee may not create it again with its id (as for any client-chosen id).
            #expect(try await fixture.send(.PUT, "Observation/o1", token: deleterToken, body: Rest.observation("o1")).status == 405)
            // The server's own views are not deleted.
            #expect(try await fixture.send(.DELETE, "Consent/x", token: fixture.walletToken).status == 405)
        }
    }

    @Test(arguments: TestBackend.available)
    func transactionsAndBatchesTakeDeleteEntries(backend: TestBackend) async throws {
        try await Rest.with(backend) { fixture in
            let token = fixture.walletToken
            try await fixture.put([Rest.patient, Rest.observation("o1"), Rest.observation("o2")])
            let invalid = #"{"resourceType":"Observation","id":"bad","code":{"text":"no status"}}"#
            // One bad entry: nothing of the transaction happens, the delete included.
            let failing = Rest.bundle("transaction", [Rest.entry("DELETE", "Observation/o1"), Rest.entry("PUT", "Observation/bad", resource: invalid)])
            let refused = try await fixture.send(.POST, "", token: token, body: failing)
            #expect(refused.status == 422 || refused.status == 400, "\(refused.status)")
            #expect(try await fixture.send(.GET, "Observation/o1", token: token).status == 200)
            // A stale ifMatch on the delete: 412, the create beside it not stored.
            let stale = Rest.bundle("transaction", [Rest.entry("DELETE", "Observation/o1", extra: #","ifMatch":"W/\"5\"""#),
                                                    Rest.entry("POST", "Observation", resource: Rest.observation("n"))])
            #expect(try await fixture.send(.POST, "", token: token, body: stale).status == 412)
            #expect(try await fixture.send(.GET, "Observation?_summary=count", token: token).json["total"] == .number("2"))
            // Together: deleted and created in one commit.
            let good = Rest.bundle("transaction", [Rest.entry("DELETE", "Observation/o1"),
                                                   Rest.entry("POST", "Observation", resource: Rest.observation("n"))])
            let stored = try await fixture.send(.POST, "", token: token, body: good)
            let statuses = (stored.json["entry"]?.arrayValue ?? []).compactMap { $0.objectValue?["response"]?.objectValue?["status"]?.stringValue }
            #expect(stored.status == 200 && statuses == ["204", "201"], "\(stored.status) \(statuses)")
            #expect(try await fixture.send(.GET, "Observation/o1", token: token).status == 410)
            // Conditional deletes are not supported.
            let conditional = Rest.bundle("transaction", [Rest.entry("DELETE", "Observation?_id=o2")])
            #expect(try await fixture.send(.POST, "", token: token, body: conditional).status == 400)
            #expect(try await fixture.send(.DELETE, "Observation?_id=o2", token: token).status == 404)
            // A batch: each DELETE on its own.
            let batch = Rest.bundle("batch", [Rest.entry("DELETE", "Observation/o2"), Rest.entry("DELETE", "Observation/o1"),
                                              Rest.entry("DELETE", "Observation/none"), Rest.entry("DELETE", "Observation?_id=o2")])
            let answered = try await fixture.send(.POST, "", token: token, body: batch)
            let batchStatuses = (answered.json["entry"]?.arrayValue ?? []).compactMap {
                $0.objectValue?["response"]?.objectValue?["status"]?.stringValue
            }
            #expect(batchStatuses == ["204", "204", "404", "405"], "\(batchStatuses)")
            #expect(try await fixture.send(.GET, "Observation/o2", token: token).status == 410)
        }
    }
}
