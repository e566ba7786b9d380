import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// SMART v2 granular scopes (`patient/Observation.rs?category=laboratory`) on the ways in
/// beside read and search, over real HTTP to the server on 127.0.0.1, on every store: `vread`,
/// instance and type `_history` (each version judged by its own JSON, and the resource's
/// current version too), `Patient/$everything`, and a transaction entry's `ifNoneExist`.
/// What the scope's query hides is never shown, never counted in a `total`, and never matched.
@Suite struct GranularScopeVersionTests {
    static let laboratory = "patient/Observation.rs?category=laboratory"

    /// The versions of a `history` Bundle, as `id@version`, in its order.
    static func versions(_ bundle: JSONObject) -> [String] {
        (bundle["entry"]?.arrayValue ?? []).compactMap { entry -> String? in
            guard let object = entry.objectValue, let url = object["fullUrl"]?.stringValue,
                  let etag = object["response"]?.objectValue?["etag"]?.stringValue, let id = url.split(separator: "/").last else { return nil }
            return "\(id)@\(etag.replacingOccurrences(of: "W/", with: "").replacingOccurrences(of: "\"", with: ""))"
        }
    }

    /// The resources of a Bundle's entries, as `Type/id`, sorted.
    static func resources(_ bundle: JSONObject) -> [String] {
        (bundle["entry"]?.arrayValue ?? []).compactMap { entry -> String? in
            guard let resource = entry.objectValue?["resource"]?.objectValue else { return nil }
            return "\(resource["resourceType"]?.stringValue ?? "")/\(resource["id"]?.stringValue ?? "")"
        }.sorted()
    }

    /// The path (after `/fhir/`) of a Bundle's `next` link.
    static func next(_ bundle: JSONObject) -> String? {
        let url = bundle["link"]?.arrayValue?.first { $0.objectValue?["relation"] == .string("next") }?.objectValue?["url"]?.stringValue
        return url.flatMap { url in url.range(of: "/fhir/").map { String(url[$0.upperBound...]) } }
    }

    /// The bytes of `GET /fhir/{path}` with `token`.
    static func raw(_ fixture: FHIRRestTests.Fixture, _ path: String, token: String) async throws -> (status: Int, body: [UInt8]) {
        let answer = try await HTTPExchange.send(.GET, "\(fixture.server.baseURL)/fhir/\(path)", headers: [("Authorization", "Bearer \(token)")])
        return (answer.status, answer.body)
    }

    // MARK: vread and _history

    @Test(arguments: TestBackend.available)
    func noVersionTheScopesQueryHidesIsShownOrCounted(backend: TestBackend) async throws {
        try await GranularScopeSearchTests.with(backend, scope: Self.laboratory) { fixture, token in
            let owner = fixture.walletToken
            func write(_ id: String, _ category: String, status: Int) async throws {
                fixture.world.clock.advance(seconds: 1)
                let body = GranularScopeSearchTests.observation(id, category: category, extra: #","issued":"2021-01-01T00:00:00Z""#)
                let answer = try await fixture.send(.PUT, "Observation/\(id)", token: owner, body: body)
                try #require(answer.status == status, "PUT \(id): \(answer.status) \(answer.json)")
            }
            // lab-1 and vital-1 get a second version of their category; turned-lab was vital-signs and is
            // laboratory now, turned-vital the other way round; vital-2 was vital-signs and is deleted.
            try await write("lab-1", "laboratory", status: 200)
            try await write("vital-1", "vital-signs", status: 200)
            try await write("turned-lab", "vital-signs", status: 201)
            try await write("turned-lab", "laboratory", status: 200)
            try await write("turned-vital", "laboratory", status: 201)
            try await write("turned-vital", "vital-signs", status: 200)
            try await write("vital-2", "vital-signs", status: 201)
            fixture.world.clock.advance(seconds: 1)
            try #require(try await fixture.send(.DELETE, "Observation/vital-2", token: owner).status == 204)

            // vread: a hidden version answers as a read of a hidden resource (and an unknown one) does.
            let hiddenRead = try await fixture.send(.GET, "Observation/vital-1", token: token)
            let unknown = try await fixture.send(.GET, "Observation/absent/_history/1", token: token)
            #expect(hiddenRead.status == 404 && unknown.status == 404)
            for (path, owned) in [("vital-1/_history/1", 200), ("vital-1/_history/2", 200), ("turned-lab/_history/1", 200),
                                  ("turned-vital/_history/1", 200), ("turned-vital/_history/2", 200), ("vital-2/_history/1", 200),
                                  ("vital-2/_history/2", 410)] {
                // The owner sees each (the deletion as 410); the scoped token none.
                #expect(try await fixture.send(.GET, "Observation/\(path)", token: owner).status == owned, "\(path)")
                let answer = try await Self.raw(fixture, "Observation/\(path)", token: token)
                #expect(answer.status == hiddenRead.status, "\(path): \(answer.status)")
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(!text.contains("vital-signs") && !text.contains(#""resourceType":"Observation""#), "\(path): \(text)")
            }
            for path in ["lab-1/_history/1", "lab-1/_history/2", "turned-lab/_history/2"] {
                let answer = try await fixture.send(.GET, "Observation/\(path)", token: token)
                #expect(answer.status == 200 && answer.json["resourceType"] == .string("Observation"), "\(path): \(answer.status)")
                #expect(!GranularScopeSearchTests.text(answer.json).contains("vital-signs"), "\(path)")
            }

            // Instance history: the visible versions only, and a total counting them.
            let turned = try await fixture.send(.GET, "Observation/turned-lab/_history", token: token)
            #expect(turned.status == 200 && Self.versions(turned.json) == ["turned-lab@2"] && turned.json["total"] == .number("1"), "\(turned.json)")
            #expect(!GranularScopeSearchTests.text(turned.json).contains("vital-signs"))
            let ownersTurned = try await fixture.send(.GET, "Observation/turned-lab/_history", token: owner)
            #expect(Self.versions(ownersTurned.json) == ["turned-lab@2", "turned-lab@1"] && ownersTurned.json["total"] == .number("2"))
            let lab = try await fixture.send(.GET, "Observation/lab-1/_history", token: token)
            #expect(Self.versions(lab.json) == ["lab-1@2", "lab-1@1"] && lab.json["total"] == .number("2"), "\(lab.json)")
            // A resource hidden now (or when deleted) shows no history at all.
            for id in ["vital-1", "turned-vital", "vital-2"] {
                #expect(try await fixture.send(.GET, "Observation/\(id)/_history", token: owner).status == 200, "\(id)")
                let answer = try await Self.raw(fixture, "Observation/\(id)/_history", token: token)
                #expect(answer.status == 404 && !String(decoding: answer.body, as: UTF8.self).contains("vital-signs"), "\(id): \(answer.status)")
            }

            // Type history: the owner's has every version; the scoped token's leaves out the hidden ones and does not count them.
            let visible: Set = ["lab-1@2", "lab-1@1", "lab-2@1", "lab-3@1", "turned-lab@2"]
            let ownersAll = try await fixture.send(.GET, "Observation/_history", token: owner)
            #expect(ownersAll.json["total"] == .number("12") && Self.versions(ownersAll.json).count == 12, "\(ownersAll.json)")
            let all = try await fixture.send(.GET, "Observation/_history", token: token)
            #expect(all.status == 200 && Set(Self.versions(all.json)) == visible && Self.versions(all.json).count == visible.count, "\(all.json)")
            #expect(all.json["total"] == .number(String(visible.count)), "\(all.json)")
            #expect(!GranularScopeSearchTests.text(all.json).contains("vital-signs"), "a hidden version leaked")
            // Page by page: each total (when given) counts the visible versions; the pages hold exactly them.
            var seen: [String] = []
            var path: String? = "Observation/_history?_count=1"
            while let current = path {
                let page = try await fixture.send(.GET, current, token: token)
                try #require(page.status == 200, "\(page.json)")
                #expect(page.json["total"] == nil || page.json["total"] == .number(String(visible.count)), "\(page.json)")
                #expect(!GranularScopeSearchTests.text(page.json).contains("vital-signs"), "a hidden version leaked")
                seen += Self.versions(page.json)
                path = Self.next(page.json)
                try #require(seen.count <= 12, "the pages do not end")
            }
            #expect(seen.count == visible.count && Set(seen) == visible, "\(seen)")
        }
    }

    // MARK: $everything

    @Test(arguments: TestBackend.available)
    func everythingLeavesOutAndDoesNotCountWhatTheScopesQueryHides(backend: TestBackend) async throws {
        try await GranularScopeSearchTests.with(backend, scope: Self.laboratory + " patient/Patient.rs") { fixture, token in
            let visible = ["Observation/lab-1", "Observation/lab-2", "Observation/lab-3", "Patient/p1"]
            let owners = try await fixture.send(.GET, "Patient/p1/$everything", token: fixture.walletToken)
            #expect(Self.resources(owners.json) == (visible + ["Observation/vital-1"]).sorted() && owners.json["total"] == .number("5"))

            let whole = try await fixture.send(.GET, "Patient/p1/$everything", token: token)
            #expect(whole.status == 200 && Self.resources(whole.json) == visible, "\(whole.json)")
            #expect(whole.json["total"] == .number("4"), "\(whole.json)")
            // (lab-3 names vital-1 among its members: the reference is lab-3's, vital-1 itself is not there.)
            #expect(!GranularScopeSearchTests.text(whole.json).contains(#""id":"vital-1""#)
                && !GranularScopeSearchTests.text(whole.json).contains("vital-signs"), "a vital-signs Observation leaked")
            // Page by page: each total (when given) is 4, and the pages hold the four.
            var seen: [String] = []
            var path: String? = "Patient/p1/$everything?_count=1"
            while let current = path {
                let page = try await fixture.send(.GET, current, token: token)
                try #require(page.status == 200, "\(page.json)")
                #expect(page.json["total"] == nil || page.json["total"] == .number("4"), "\(page.json)")
                #expect(!GranularScopeSearchTests.text(page.json).contains("vital-signs"), "a vital-signs Observation leaked")
                seen += Self.resources(page.json)
                path = Self.next(page.json)
                try #require(seen.count <= 6, "the pages do not end")
            }
            #expect(seen.sorted() == visible, "\(seen)")
        }
    }

    // MARK: transaction ifNoneExist

    @Test(arguments: TestBackend.available)
    func aTransactionsIfNoneExistMatchingOnlyAHiddenResourceCreatesAndLeavesItAlone(backend: TestBackend) async throws {
        try await GranularScopeSearchTests.with(backend, scope: "patient/Observation.cruds?category=laboratory") { fixture, token in
            let owner = fixture.walletToken
            let before = try await Self.raw(fixture, "Observation/vital-1", token: owner)
            try #require(before.status == 200)
            let created = GranularScopeSearchTests.observation(nil, category: "laboratory")
            let transaction = FHIRRestTests.bundle("transaction", [
                // Matches only the hidden vital-1: no match, so a new Observation.
                FHIRRestTests.entry("POST", "Observation", resource: created, fullUrl: "urn:uuid:6d1f6c3e-2b7a-4f0e-9a51-0c8e4b7d2a10",
                                    extra: #","ifNoneExist":"_id=vital-1""#),
                // Matches the visible lab-1 and the hidden vital-1: lab-1, as it is.
                FHIRRestTests.entry("POST", "Observation", resource: created, extra: #","ifNoneExist":"Observation?_id=lab-1,vital-1""#),
            ])
            let answer = try await fixture.send(.POST, "", token: token, body: transaction)
            #expect(answer.status == 200 && answer.json["type"] == .string("transaction-response"), "\(answer.status) \(answer.json)")
            let entries = (answer.json["entry"]?.arrayValue ?? []).compactMap(\.objectValue)
            let statuses = entries.compactMap { $0["response"]?.objectValue?["status"]?.stringValue }
            #expect(statuses == ["201", "200"], "\(answer.json)")
            let ids = entries.map { $0["resource"]?.objectValue?["id"]?.stringValue }
            #expect(ids.count == 2 && ids[0] != nil && ids[0] != "vital-1" && ids[0] != "lab-1" && ids[1] == "lab-1", "\(ids)")
            #expect(!GranularScopeSearchTests.text(answer.json).contains("vital"), "the hidden Observation leaked")

            // A batch entry the same way.
            let batch = FHIRRestTests.bundle("batch", [FHIRRestTests.entry("POST", "Observation", resource: created, extra: #","ifNoneExist":"_id=vital-1""#)])
            let batched = try await fixture.send(.POST, "", token: token, body: batch)
            let batchStatus = batched.json["entry"]?.arrayValue?.first?.objectValue?["response"]?.objectValue?["status"]?.stringValue
            #expect(batched.status == 200 && batchStatus == "201", "\(batched.json)")
            #expect(!GranularScopeSearchTests.text(batched.json).contains("vital"), "the hidden Observation leaked")

            // vital-1 is byte for byte as it was, with its one version; two new Observations were stored.
            let after = try await Self.raw(fixture, "Observation/vital-1", token: owner)
            #expect(after.status == 200 && after.body == before.body)
            let history = try await fixture.send(.GET, "Observation/vital-1/_history", token: owner)
            #expect(Self.versions(history.json) == ["vital-1@1"], "\(history.json)")
            #expect(try await fixture.send(.GET, "Observation?_summary=count", token: owner).json["total"] == .number("6"))
        }
    }
}
