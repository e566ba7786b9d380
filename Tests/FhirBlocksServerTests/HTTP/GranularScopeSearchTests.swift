import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// SMART v2 granular scopes (`patient/Observation.rs?category=laboratory`) on the ways into a
/// search other than its matches, over real HTTP to the server on 127.0.0.1, on every store:
/// `_revinclude` and `_include` bring the resources the scope's query covers and never another;
/// a search's `total` (and `_summary=count`) never counts a resource the scope hides; and a
/// conditional create or update whose condition matches only hidden resources acts as if it
/// matched nothing, never returning or changing them.
@Suite struct GranularScopeSearchTests {
    static let categories = "http://terminology.hl7.org/CodeSystem/observation-category"

    static func observation(_ id: String?, category: String, extra: String = "") -> String {
        let idMember = id.map { #""id":"\#($0)","# } ?? ""
        return #"{"resourceType":"Observation",\#(idMember)"status":"final","category":[{"coding":[{"system":"\#(categories)","code":"\#(category)"}]}],"#
            + #""code":{"text":"\#(id ?? "new")"},"subject":{"reference":"Patient/p1"}\#(extra)}"#
    }

    /// The wallet's compartment: Patient p1, three laboratory Observations (lab-3 lists lab-1 and
    /// vital-1 as members) and one vital-signs Observation; and an access token for `scope`,
    /// approved by the wallet for a SMART app.
    static func with(_ backend: TestBackend, scope: String, _ body: (FHIRRestTests.Fixture, String) async throws -> Void) async throws {
        try await FHIRRestTests.with(backend) { fixture in
            try await fixture.put([
                FHIRRestTests.patient,
                Self.observation("lab-1", category: "laboratory"),
                Self.observation("lab-2", category: "laboratory"),
                Self.observation("lab-3", category: "laboratory",
                                 extra: #","hasMember":[{"reference":"Observation/lab-1"},{"reference":"Observation/vital-1"}]"#),
                Self.observation("vital-1", category: "vital-signs"),
            ])
            let client = try await fixture.world.registerSmartClient()
            let token = try await SmartCertificationChecksTests.tokens(fixture.world, fixture.server, wallet: fixture.wallet, client: client,
                                                                       state: "granular", scope: "launch/patient \(scope) offline_access").access
            try await body(fixture, token)
        }
    }

    static func text(_ json: JSONObject) -> String {
        String(decoding: JSONWriter.serialize(.object(json)), as: UTF8.self)
    }

    @Test(arguments: TestBackend.available)
    func revincludeAndIncludeBringOnlyWhatTheScopesQueryCovers(backend: TestBackend) async throws {
        try await Self.with(backend, scope: "patient/Observation.rs?category=laboratory patient/Patient.rs") { fixture, token in
            // The wallet's own token includes vital-1 too: it references the Patient and is lab-3's member.
            let whole = try await fixture.send(.GET, "Patient?_revinclude=Observation:subject", token: fixture.walletToken)
            #expect(FHIRRestTests.entries(whole.json, mode: "include")
                == ["Observation/lab-1", "Observation/lab-2", "Observation/lab-3", "Observation/vital-1"])

            let patients = try await fixture.send(.GET, "Patient?_revinclude=Observation:subject", token: token)
            #expect(patients.status == 200, "\(patients.json)")
            #expect(FHIRRestTests.entries(patients.json, mode: "match") == ["Patient/p1"])
            #expect(FHIRRestTests.entries(patients.json, mode: "include") == ["Observation/lab-1", "Observation/lab-2", "Observation/lab-3"])
            // (lab-3 names vital-1 among its members: the reference is lab-3's, vital-1 itself is not there.)
            #expect(!Self.text(patients.json).contains(#""id":"vital-1""#) && !Self.text(patients.json).contains("vital-signs"),
                    "a vital-signs Observation leaked")
            #expect(patients.json["total"] == .number("1"))

            let members = try await fixture.send(.GET, "Observation?_id=lab-3&_include=Observation:has-member&_include=Observation:subject",
                                                 token: token)
            #expect(members.status == 200, "\(members.json)")
            #expect(FHIRRestTests.entries(members.json, mode: "match") == ["Observation/lab-3"])
            #expect(FHIRRestTests.entries(members.json, mode: "include") == ["Observation/lab-1", "Patient/p1"])
            #expect(!Self.text(members.json).contains(#""id":"vital-1""#) && !Self.text(members.json).contains("vital-signs"),
                    "a vital-signs Observation leaked")
            // A vital-signs Observation as the match: nothing, and nothing it references.
            let hidden = try await fixture.send(.GET, "Observation?_id=vital-1&_include=Observation:subject", token: token)
            #expect(hidden.status == 200 && hidden.json["entry"] == nil && hidden.json["total"] == .number("0"), "\(hidden.json)")
        }
    }

    /// Two clauses in one scope: the server cannot narrow the store's query to it, so the store
    /// counts the vital-signs Observation too; no total the token sees counts it.
    @Test(arguments: TestBackend.available)
    func theTotalNeverCountsAHiddenResource(backend: TestBackend) async throws {
        for scope in ["patient/Observation.rs?category=laboratory&status=final", "patient/Observation.rs?category=laboratory"] {
            try await Self.with(backend, scope: scope) { fixture, token in
                let count = try await fixture.send(.GET, "Observation?_summary=count", token: token)
                #expect(count.status == 200 && count.json["total"] == .number("3") && count.json["entry"] == nil, "\(scope): \(count.json)")
                let all = try await fixture.send(.GET, "Observation", token: token)
                #expect(FHIRRestTests.entries(all.json, mode: "match") == ["Observation/lab-1", "Observation/lab-2", "Observation/lab-3"])
                #expect(all.json["total"] == .number("3"), "\(scope): \(all.json)")
                // Page by page: each page's total (when there is one) is 3, and the pages hold the three.
                var seen: [String] = []
                var path: String? = "Observation?_count=1"
                var pages = 0
                while let next = path {
                    let page = try await fixture.send(.GET, next, token: token)
                    try #require(page.status == 200, "\(scope): \(page.json)")
                    #expect(page.json["total"] == nil || page.json["total"] == .number("3"), "\(scope): \(page.json)")
                    seen += FHIRRestTests.entries(page.json, mode: "match")
                    let link = page.json["link"]?.arrayValue?.first { $0.objectValue?["relation"] == .string("next") }?.objectValue?["url"]?.stringValue
                    path = link.flatMap { url in url.range(of: "/fhir/").map { String(url[$0.upperBound...]) } }
                    pages += 1
                    try #require(pages <= 5, "\(scope): the pages do not end")
                }
                #expect(seen.sorted() == ["Observation/lab-1", "Observation/lab-2", "Observation/lab-3"], "\(scope)")
                // The whole compartment has four: the wallet's count.
                let owner = try await fixture.send(.GET, "Observation?_summary=count", token: fixture.walletToken)
                #expect(owner.json["total"] == .number("4"))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aConditionMatchingOnlyHiddenResourcesMatchesNothing(backend: TestBackend) async throws {
        try await Self.with(backend, scope: "patient/Observation.cruds?category=laboratory") { fixture, token in
            let before = try await fixture.send(.GET, "Observation/vital-1", token: fixture.walletToken)
            try #require(before.status == 200)
            #expect(try await fixture.send(.GET, "Observation/vital-1", token: token).status == 404)

            // If-None-Exist matching only the hidden vital-1: no match, so the create goes ahead.
            let created = try await fixture.send(.POST, "Observation", token: token, body: Self.observation(nil, category: "laboratory"),
                                                 headers: [("If-None-Exist", "_id=vital-1")])
            #expect(created.status == 201, "\(created.json)")
            let createdID = try #require(created.json["id"]?.stringValue)
            #expect(!["vital-1", "lab-1"].contains(createdID))
            #expect(!Self.text(created.json).contains("vital"))
            // Matching the visible lab-1 and the hidden vital-1: the one match the token sees, returned.
            let existing = try await fixture.send(.POST, "Observation", token: token, body: Self.observation(nil, category: "laboratory"),
                                                  headers: [("If-None-Exist", "_id=lab-1,vital-1")])
            #expect(existing.status == 200 && existing.json["id"] == .string("lab-1"), "\(existing.status) \(existing.json)")
            #expect(!Self.text(existing.json).contains("vital"))

            // A conditional update whose search matches only vital-1 creates; one that also matches lab-1 updates lab-1.
            let updateCreated = try await fixture.send(.PUT, "Observation?_id=vital-1", token: token,
                                                       body: Self.observation(nil, category: "laboratory", extra: #","issued":"2021-01-01T00:00:00Z""#))
            #expect(updateCreated.status == 201 && updateCreated.json["id"] != .string("vital-1"), "\(updateCreated.status) \(updateCreated.json)")
            let updated = try await fixture.send(.PUT, "Observation?_id=lab-1,vital-1", token: token,
                                                 body: Self.observation(nil, category: "laboratory", extra: #","issued":"2021-01-01T00:00:00Z""#))
            #expect(updated.status == 200 && updated.json["id"] == .string("lab-1"), "\(updated.status) \(updated.json)")
            #expect(updated.json["meta"]?.objectValue?["versionId"] == .string("2"))

            // vital-1 is as it was.
            let after = try await fixture.send(.GET, "Observation/vital-1", token: fixture.walletToken)
            #expect(after.status == 200 && after.json == before.json)
            #expect(after.json["meta"]?.objectValue?["versionId"] == .string("1"))
        }
    }
}
