import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// The REST a FHIR client expects, over real HTTP to the server on 127.0.0.1, on every store:
/// `_summary=count`, `_elements` on search and read, `_include` and `_revinclude` (each
/// included resource filtered as a read is).
@Suite struct FHIRRestTests {
    static let confidentiality = "http://terminology.hl7.org/CodeSystem/v3-Confidentiality"

    /// A server on `backend` with a registered wallet and its all-access token.
    struct Fixture {
        let world: TestWorld
        let server: RunningServer
        let wallet: TestParty
        let walletToken: String

        func send(_ method: HTTPMethod, _ path: String, token: String?, body: String? = nil, headers: [(String, String)] = []) async throws
            -> (status: Int, headers: [(String, String)], json: JSONObject) {
            var all = headers
            if let token { all.append(("Authorization", "Bearer \(token)")) }
            if body != nil { all.append(("Content-Type", "application/fhir+json")) }
            let response = try await HTTPExchange.send(method, "\(server.baseURL)/fhir/\(path)", headers: all, body: body.map { Array($0.utf8) })
            return (response.status, response.headers, (try? JSONParser.parse(response.body))?.objectValue ?? JSONObject())
        }

        /// PUTs each resource (its `resourceType`/`id` taken from the JSON) with the wallet's token.
        func put(_ resources: [String]) async throws {
            for text in resources {
                let object = try #require(try JSONParser.parse(Array(text.utf8)).objectValue)
                let path = "\(object["resourceType"]?.stringValue ?? "")/\(object["id"]?.stringValue ?? "")"
                let response = try await send(.PUT, path, token: walletToken, body: text)
                try #require(response.status == 201, "PUT \(path): \(response.status) \(response.json)")
            }
        }
    }

    static func with(_ backend: TestBackend, _ body: (Fixture) async throws -> Void) async throws {
        let world = try await TestWorld.make(backend)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let token = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            try await body(Fixture(world: world, server: server, wallet: wallet, walletToken: token))
        }
    }

    static func observation(_ id: String, subject: String = "Patient/p1", label: String? = nil, extra: String = "") -> String {
        let meta = label.map { #","meta":{"security":[{"system":"\#(confidentiality)","code":"\#($0)"}]}"# } ?? ""
        return #"{"resourceType":"Observation","id":"\#(id)","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]},"#
            + #""subject":{"reference":"\#(subject)"},"effectiveDateTime":"2020-01-05","valueQuantity":{"value":72,"unit":"/min"}\#(extra)\#(meta)}"#
    }

    static func provenance(_ id: String, target: String, label: String? = nil) -> String {
        let meta = label.map { #","meta":{"security":[{"system":"\#(confidentiality)","code":"\#($0)"}]}"# } ?? ""
        return #"{"resourceType":"Provenance","id":"\#(id)","target":[{"reference":"\#(target)"}],"recorded":"2020-01-05T10:00:00Z","#
            + #""agent":[{"who":{"display":"Dr. Lee"}}]\#(meta)}"#
    }

    static let patient = #"{"resourceType":"Patient","id":"p1","name":[{"family":"Doe"}]}"#

    /// The entries of a Bundle with `search.mode` `mode`, as `Type/id`.
    static func entries(_ bundle: JSONObject, mode: String) -> [String] {
        (bundle["entry"]?.arrayValue ?? []).compactMap { entry -> String? in
            guard let object = entry.objectValue, object["search"]?.objectValue?["mode"]?.stringValue == mode,
                  let resource = object["resource"]?.objectValue else { return nil }
            return "\(resource["resourceType"]?.stringValue ?? "")/\(resource["id"]?.stringValue ?? "")"
        }.sorted()
    }

    static func isSubsetted(_ resource: JSONObject) -> Bool {
        (resource["meta"]?.objectValue?["tag"]?.arrayValue ?? []).contains { $0.objectValue?["code"]?.stringValue == "SUBSETTED" }
    }

    // MARK: _summary and _elements

    @Test(arguments: TestBackend.available)
    func summaryCountAndElements(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture in
            try await fixture.put([Self.patient, Self.observation("o1"), Self.observation("o2"), Self.observation("o3")])
            let token = fixture.walletToken

            // `_summary=count`: the total only, no entries, no next page.
            let count = try await fixture.send(.GET, "Observation?_summary=count", token: token)
            #expect(count.status == 200)
            #expect(count.json["resourceType"] == .string("Bundle") && count.json["type"] == .string("searchset"))
            #expect(count.json["total"] == .number("3"))
            #expect(count.json["entry"] == nil)
            let narrowed = try await fixture.send(.GET, "Observation?_summary=count&_id=o1,o2", token: token)
            #expect(narrowed.json["total"] == .number("2") && narrowed.json["entry"] == nil)

            // `_elements` on search: the listed elements with id, meta and resourceType, tagged.
            let elements = try await fixture.send(.GET, "Observation?_elements=status,value&_count=2", token: token)
            #expect(elements.status == 200 && elements.json["total"] == .number("3"))
            let resources = (elements.json["entry"]?.arrayValue ?? []).compactMap { $0.objectValue?["resource"]?.objectValue }
            #expect(resources.count == 2)
            for resource in resources {
                #expect(Set(resource.keys) == ["resourceType", "id", "meta", "status", "valueQuantity"], "\(resource.keys)")
                #expect(Self.isSubsetted(resource))
            }
            // The next link keeps `_elements`.
            let next = try #require(elements.json["link"]?.arrayValue?.first { $0.objectValue?["relation"] == .string("next") }?
                .objectValue?["url"]?.stringValue)
            #expect(next.contains("_elements=status%2Cvalue") || next.contains("_elements=status,value"), "\(next)")

            // `_elements` on a read.
            let read = try await fixture.send(.GET, "Observation/o1?_elements=code", token: token)
            #expect(read.status == 200)
            #expect(Set(read.json.keys) == ["resourceType", "id", "meta", "code"], "\(read.json.keys)")
            #expect(Self.isSubsetted(read.json))
            #expect(read.json["meta"]?.objectValue?["versionId"] == .string("1"))
            // Without it the read is whole and untagged.
            let whole = try await fixture.send(.GET, "Observation/o1", token: token)
            #expect(whole.json["subject"] != nil && !Self.isSubsetted(whole.json))

            // What is not supported is refused.
            for path in ["Observation?_summary=true", "Observation?_elements=code.coding", "Observation?_elements=", "Observation/o1?_summary=count",
                         "Observation/o1?_include=Observation:subject", "Observation?_include=Observation:*",
                         "Observation?_include=Observation:status", "Observation?_include=Patient:organization",
                         "Observation?_include:iterate=Observation:subject", "Observation?_revinclude=Nothing:target"] {
                let refused = try await fixture.send(.GET, path, token: token)
                #expect(refused.status == 400, "\(path): \(refused.status)")
                #expect(refused.json["resourceType"] == .string("OperationOutcome"))
            }
        }
    }

    // MARK: _include and _revinclude

    @Test(arguments: TestBackend.available)
    func includeAndRevincludeFilterAsAReadDoes(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture in
            let world = fixture.world
            try await fixture.put([
                Self.patient,
                Self.observation("o1", extra: #","hasMember":[{"reference":"Observation/o2"},{"reference":"Observation/o3"}]"#),
                Self.observation("o2"),
                Self.observation("o3", label: "R"),
                Self.observation("o4", extra: #","derivedFrom":[{"reference":"Observation/o1"}]"#),
                Self.observation("o5", label: "R", extra: #","derivedFrom":[{"reference":"https://fb.test/fhir/Observation/o1"}]"#),
                Self.provenance("prov1", target: "Observation/o1"),
                Self.provenance("prov2", target: "https://fb.test/fhir/Observation/o2"),
                Self.provenance("prov3", target: "Observation/o1", label: "R"),
            ])
            let token = fixture.walletToken

            // The wallet sees everything.
            let all = try await fixture.send(.GET, "Observation?_id=o1,o2&_include=Observation:subject&_include=Observation:has-member"
                                             + "&_revinclude=Provenance:target", token: token)
            #expect(all.status == 200)
            #expect(Self.entries(all.json, mode: "match") == ["Observation/o1", "Observation/o2"])
            // o2 is a match, so it is not included again.
            #expect(Self.entries(all.json, mode: "include") == ["Observation/o3", "Patient/p1", "Provenance/prov1", "Provenance/prov2",
                                                                 "Provenance/prov3"])
            #expect(all.json["total"] == .number("2"))
            let typed = try await fixture.send(.GET, "Observation?_id=o1&_include=Observation:subject:Group", token: token)
            #expect(Self.entries(typed.json, mode: "include").isEmpty)
            let rev = try await fixture.send(.GET, "Observation?_id=o1&_revinclude=Observation:derived-from", token: token)
            #expect(Self.entries(rev.json, mode: "include") == ["Observation/o4", "Observation/o5"])
            let patients = try await fixture.send(.GET, "Patient?_revinclude=Observation:subject&_revinclude=Provenance:target", token: token)
            #expect(Self.entries(patients.json, mode: "match") == ["Patient/p1"])
            #expect(Self.entries(patients.json, mode: "include") == ["Observation/o1", "Observation/o2", "Observation/o3", "Observation/o4",
                                                                      "Observation/o5"])

            // A grantee whose token covers Observations up to N: nothing it may not read is
            // included, neither a type outside its scope nor a resource above its labels.
            let app = try await world.register(.app("a"))
            #expect(try await world.grant(from: fixture.wallet, to: [app], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
            let appToken = try await world.vacaToken(app, scope: "patient/Observation.rs conf/N")
            #expect(try await fixture.send(.GET, "Observation/o3", token: appToken).status == 404)
            #expect(try await fixture.send(.GET, "Patient/p1", token: appToken).status == 403)
            let limited = try await fixture.send(.GET, "Observation?_id=o1&_include=Observation:subject&_include=Observation:has-member"
                                                 + "&_revinclude=Provenance:target&_revinclude=Observation:derived-from", token: appToken)
            #expect(limited.status == 200)
            #expect(Self.entries(limited.json, mode: "match") == ["Observation/o1"])
            #expect(Self.entries(limited.json, mode: "include") == ["Observation/o2", "Observation/o4"])
            let body = String(decoding: JSONWriter.serialize(.object(limited.json)), as: UTF8.self)
            for hidden in ["o3", "o5", "prov1", "prov3", "Doe"] { #expect(!body.contains("\"\(hidden)\""), "\(hidden) leaked") }
        }
    }

    /// A versioned reference (`Type/id/_history/n`, relative or under this server's base) names
    /// the resource for `_revinclude`, `_include` and reference searches alike.
    @Test(arguments: TestBackend.available)
    func versionedReferencesMatchTheirResource(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture in
            try await fixture.put([
                Self.patient, Self.observation("o1"), Self.observation("o2"),
                Self.observation("o4", extra: #","derivedFrom":[{"reference":"Observation/o1/_history/1"}]"#),
                Self.provenance("prov1", target: "Observation/o1/_history/1"),
                Self.provenance("prov2", target: "https://fb.test/fhir/Observation/o1/_history/1"),
                Self.provenance("prov3", target: "Patient/p1/_history/1"),
                Self.provenance("prov4", target: "Observation/o2/_history/1"),
            ])
            let token = fixture.walletToken
            let rev = try await fixture.send(.GET, "Observation?_id=o1&_revinclude=Provenance:target&_revinclude=Observation:derived-from", token: token)
            #expect(rev.status == 200)
            #expect(Self.entries(rev.json, mode: "include") == ["Observation/o4", "Provenance/prov1", "Provenance/prov2"])
            let targets = try await fixture.send(.GET, "Provenance?target=Observation/o1", token: token)
            #expect(Self.entries(targets.json, mode: "match") == ["Provenance/prov1", "Provenance/prov2"])
            // `patient` reads `target is Patient`: the versioned Patient reference is one.
            let patients = try await fixture.send(.GET, "Patient?_id=p1&_revinclude=Provenance:patient", token: token)
            #expect(Self.entries(patients.json, mode: "include") == ["Provenance/prov3"])
            let included = try await fixture.send(.GET, "Observation?_id=o4&_include=Observation:derived-from", token: token)
            #expect(Self.entries(included.json, mode: "include") == ["Observation/o1"])
        }
    }

    // MARK: Versions, history and conditional writes

    static func header(_ headers: [(String, String)], _ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    @Test(arguments: TestBackend.available)
    func versionsHistoryAndPreconditions(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture in
            let token = fixture.walletToken
            try await fixture.put([Self.patient, Self.observation("o1"), Self.observation("o2")])
            // o1 gets versions 2 and 3 (the clock moves between writes).
            for (version, status) in [(2, "amended"), (3, "corrected")] {
                fixture.world.clock.advance(seconds: 60)
                let body = Self.observation("o1").replacingOccurrences(of: #""status":"final""#, with: #""status":"\#(status)""#)
                let update = try await fixture.send(.PUT, "Observation/o1", token: token, body: body, headers: [("If-Match", "W/\"\(version - 1)\"")])
                #expect(update.status == 200 && Self.header(update.headers, "ETag") == "W/\"\(version)\"")
            }
            // A stale If-Match is 412 and stores nothing.
            let stale = try await fixture.send(.PUT, "Observation/o1", token: token, body: Self.observation("o1"), headers: [("If-Match", "W/\"2\"")])
            #expect(stale.status == 412 && stale.json["resourceType"] == .string("OperationOutcome"))
            let absent = try await fixture.send(.PUT, "Observation/nope", token: token, body: Self.observation("nope"), headers: [("If-Match", "W/\"1\"")])
            #expect(absent.status == 412)

            // Reads carry meta.versionId, ETag and Last-Modified; If-None-Match answers 304.
            let read = try await fixture.send(.GET, "Observation/o1", token: token)
            #expect(read.status == 200 && read.json["meta"]?.objectValue?["versionId"] == .string("3"))
            #expect(Self.header(read.headers, "ETag") == "W/\"3\"")
            let modified = try #require(Self.header(read.headers, "Last-Modified"))
            #expect(modified.hasSuffix(" GMT") && modified.count == 29, "\(modified)")
            #expect(try await fixture.send(.GET, "Observation/o1", token: token, headers: [("If-None-Match", "W/\"3\"")]).status == 304)
            #expect(try await fixture.send(.GET, "Observation/o1", token: token, headers: [("If-None-Match", "W/\"2\"")]).status == 200)

            // vread.
            let v1 = try await fixture.send(.GET, "Observation/o1/_history/1", token: token)
            #expect(v1.status == 200 && v1.json["status"] == .string("final") && Self.header(v1.headers, "ETag") == "W/\"1\"")
            let v2 = try await fixture.send(.GET, "Observation/o1/_history/2", token: token)
            #expect(v2.json["status"] == .string("amended") && v2.json["meta"]?.objectValue?["versionId"] == .string("2"))
            for missing in ["Observation/o1/_history/4", "Observation/o1/_history/x", "Observation/none/_history/1"] {
                #expect(try await fixture.send(.GET, missing, token: token).status == 404, "\(missing)")
            }

            // Instance history: newest first, paged.
            let instance = try await fixture.send(.GET, "Observation/o1/_history", token: token)
            #expect(instance.status == 200 && instance.json["type"] == .string("history") && instance.json["total"] == .number("3"))
            let versions = (instance.json["entry"]?.arrayValue ?? []).compactMap {
                $0.objectValue?["resource"]?.objectValue?["meta"]?.objectValue?["versionId"]?.stringValue
            }
            #expect(versions == ["3", "2", "1"])
            // Type history, one per page, newest first, through the next links.
            var url: String? = "\(fixture.server.baseURL)/fhir/Observation/_history?_count=1"
            var seen: [String] = []
            while let next = url {
                let response = try await HTTPExchange.send(.GET, next, headers: [("Authorization", "Bearer \(token)")])
                #expect(response.status == 200)
                let page = try #require(try JSONParser.parse(response.body).objectValue)
                let entries = page["entry"]?.arrayValue ?? []
                #expect(entries.count <= 1)
                for entry in entries {
                    let resource = entry.objectValue?["resource"]?.objectValue
                    seen.append("\(resource?["id"]?.stringValue ?? "")@\(resource?["meta"]?.objectValue?["versionId"]?.stringValue ?? "")")
                }
                url = page["link"]?.arrayValue?.first { $0.objectValue?["relation"] == .string("next") }?.objectValue?["url"]?.stringValue
                    .map { $0.replacingOccurrences(of: TestWorld.base, with: fixture.server.baseURL) }
                #expect(seen.count < 10)
            }
            #expect(seen.count == 4 && Array(seen.prefix(2)) == ["o1@3", "o1@2"] && Set(seen.suffix(2)) == ["o1@1", "o2@1"], "\(seen)")
            // `_since`: the versions made at or after it (o1@2, stamped at it, and o1@3), paged too; a bad or repeated one is 400.
            let secondMade = try #require(instance.json["entry"]?.arrayValue?[1].objectValue?["response"]?.objectValue?["lastModified"]?.stringValue)
            var sinceURL: String? = "\(fixture.server.baseURL)/fhir/Observation/_history?_count=1&_since=\(secondMade)"
            var sinceSeen: [String] = []
            while let next = sinceURL {
                let response = try await HTTPExchange.send(.GET, next, headers: [("Authorization", "Bearer \(token)")])
                try #require(response.status == 200)
                let page = try #require(try JSONParser.parse(response.body).objectValue)
                for entry in page["entry"]?.arrayValue ?? [] {
                    let resource = entry.objectValue?["resource"]?.objectValue
                    sinceSeen.append("\(resource?["id"]?.stringValue ?? "")@\(resource?["meta"]?.objectValue?["versionId"]?.stringValue ?? "")")
                }
                sinceURL = page["link"]?.arrayValue?.first { $0.objectValue?["relation"] == .string("next") }?.objectValue?["url"]?.stringValue
                    .map { $0.replacingOccurrences(of: TestWorld.base, with: fixture.server.baseURL) }
                try #require(sinceSeen.count < 10)
            }
            #expect(sinceSeen == ["o1@3", "o1@2"], "\(sinceSeen)")
            let instanceSince = try await fixture.send(.GET, "Observation/o1/_history?_since=\(secondMade)", token: token)
            #expect(instanceSince.status == 200 && instanceSince.json["total"] == .number("2"))
            #expect(try await fixture.send(.GET, "Observation/_history?_since=2020-13", token: token).status == 400)
            #expect(try await fixture.send(.GET, "Observation/_history?_since=2020&_since=2021", token: token).status == 400)

            // A grantee sees no version its token may not read (o3 is restricted).
            try await fixture.put([Self.observation("o3", label: "R")])
            let app = try await fixture.world.register(.app("a"))
            let granted = try await fixture.world.grant(from: fixture.wallet, to: [app], resource: "Observation", confidentiality: "N", sensitivity: [])
            #expect(granted.status == 200)
            let appToken = try await fixture.world.vacaToken(app, scope: "patient/Observation.rs conf/N")
            #expect(try await fixture.send(.GET, "Observation/o3/_history/1", token: appToken).status == 404)
            #expect(try await fixture.send(.GET, "Observation/o3/_history", token: appToken).status == 404)
            let typeHistory = try await fixture.send(.GET, "Observation/_history", token: appToken)
            let ids = Set((typeHistory.json["entry"]?.arrayValue ?? []).compactMap { $0.objectValue?["resource"]?.objectValue?["id"]?.stringValue })
            #expect(ids == ["o1", "o2"])
            #expect(try await fixture.send(.GET, "Patient/p1/_history", token: appToken).status == 403)

            // Conditional create: none matches → 201; one → 200 with it; several → 412.
            let identified = #"{"resourceType":"Observation","status":"final","identifier":[{"system":"urn:x","value":"1"}],"#
                + #""code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]}}"#
            let first = try await fixture.send(.POST, "Observation", token: token, body: identified, headers: [("If-None-Exist", "identifier=urn:x|1")])
            #expect(first.status == 201)
            let createdID = try #require(first.json["id"]?.stringValue)
            let again = try await fixture.send(.POST, "Observation", token: token, body: identified, headers: [("If-None-Exist", "identifier=urn:x|1")])
            #expect(again.status == 200 && again.json["id"] == .string(createdID))
            #expect(try await fixture.send(.POST, "Observation", token: token, body: identified).status == 201)
            let several = try await fixture.send(.POST, "Observation", token: token, body: identified, headers: [("If-None-Exist", "identifier=urn:x|1")])
            #expect(several.status == 412)
            #expect(try await fixture.send(.POST, "Observation", token: token, body: identified, headers: [("If-None-Exist", "bogus=1")]).status == 400)
            let count = try await fixture.send(.GET, "Observation?identifier=urn:x|1&_summary=count", token: token)
            #expect(count.json["total"] == .number("2"))

            // Conditional update: one match → updated; none → created; several → 412.
            let single = try await fixture.send(.PUT, "Observation?_id=o2", token: token,
                                                body: Self.observation("o2").replacingOccurrences(of: "\"final\"", with: "\"amended\""))
            #expect(single.status == 200 && single.json["meta"]?.objectValue?["versionId"] == .string("2"))
            let none = try await fixture.send(.PUT, "Observation?identifier=urn:x|2", token: token,
                                              body: identified.replacingOccurrences(of: #""value":"1""#, with: #""value":"2""#))
            #expect(none.status == 201)
            #expect(try await fixture.send(.PUT, "Observation?identifier=urn:x|1", token: token, body: identified).status == 412)
            #expect(try await fixture.send(.PUT, "Observation", token: token, body: identified).status == 400)
        }
    }

    // MARK: batch and transaction

    static func entry(_ method: String, _ url: String, resource: String? = nil, fullUrl: String? = nil, extra: String = "") -> String {
        var members: [String] = []
        if let fullUrl { members.append(#""fullUrl":"\#(fullUrl)""#) }
        if let resource { members.append(#""resource":\#(resource)"#) }
        members.append(#""request":{"method":"\#(method)","url":"\#(url)"\#(extra)}"#)
        return "{" + members.joined(separator: ",") + "}"
    }

    static func bundle(_ type: String, _ entries: [String]) -> String {
        #"{"resourceType":"Bundle","type":"\#(type)","entry":["# + entries.joined(separator: ",") + "]}"
    }

    @Test(arguments: TestBackend.available)
    func transactionsAreAtomicAndBatchesIndependent(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture in
            let token = fixture.walletToken
            let patientUrn = "urn:uuid:0c3d1f5e-8a5b-4c1e-9d3a-6f1b2c3d4e5f"
            let newPatient = #"{"resourceType":"Patient","name":[{"family":"Roe"}]}"#
            let linked = Self.observation("x", subject: patientUrn).replacingOccurrences(of: #""id":"x","#, with: "")
            let invalid = #"{"resourceType":"Observation","id":"bad","code":{"text":"no status"}}"#

            // One entry fails validation: the answer names it and nothing of the transaction is stored.
            let failing = Self.bundle("transaction", [
                Self.entry("POST", "Patient", resource: newPatient, fullUrl: patientUrn),
                Self.entry("POST", "Observation", resource: linked),
                Self.entry("PUT", "Observation/bad", resource: invalid),
            ])
            let refused = try await fixture.send(.POST, "", token: token, body: failing)
            #expect(refused.status == 422 || refused.status == 400, "\(refused.status) \(refused.json)")
            #expect(refused.json["resourceType"] == .string("OperationOutcome"))
            #expect(try await fixture.send(.GET, "Patient?_summary=count", token: token).json["total"] == .number("0"))
            #expect(try await fixture.send(.GET, "Observation?_summary=count", token: token).json["total"] == .number("0"))
            // A reference to a urn no entry has is refused too; so is a stale If-Match.
            let dangling = Self.bundle("transaction", [Self.entry("POST", "Observation", resource: linked)])
            #expect(try await fixture.send(.POST, "", token: token, body: dangling).status == 400)

            // The same without the bad entry: stored together, the urn rewritten to the new Patient.
            let good = Self.bundle("transaction", [
                Self.entry("POST", "Patient", resource: newPatient, fullUrl: patientUrn),
                Self.entry("POST", "Observation", resource: linked),
                Self.entry("PUT", "Observation/o9", resource: Self.observation("o9", subject: patientUrn)),
            ])
            let stored = try await fixture.send(.POST, "", token: token, body: good)
            #expect(stored.status == 200 && stored.json["type"] == .string("transaction-response"), "\(stored.json)")
            let responses = (stored.json["entry"]?.arrayValue ?? []).compactMap { $0.objectValue?["response"]?.objectValue?["status"]?.stringValue }
            #expect(responses == ["201", "201", "201"])
            let patientID = try #require(stored.json["entry"]?.arrayValue?.first?.objectValue?["resource"]?.objectValue?["id"]?.stringValue)
            let observations = try await fixture.send(.GET, "Observation?subject=Patient/\(patientID)", token: token)
            #expect(observations.json["total"] == .number("2"))
            let subjects = (observations.json["entry"]?.arrayValue ?? []).compactMap {
                $0.objectValue?["resource"]?.objectValue?["subject"]?.objectValue?["reference"]?.stringValue
            }
            #expect(subjects == ["Patient/\(patientID)", "Patient/\(patientID)"])

            // A stale If-Match in a transaction: 412, and the other entry is not stored.
            let stale = Self.bundle("transaction", [
                Self.entry("PUT", "Observation/o9", resource: Self.observation("o9", subject: "Patient/\(patientID)"), extra: #","ifMatch":"W/\"7\"""#),
                Self.entry("POST", "Patient", resource: newPatient),
            ])
            #expect(try await fixture.send(.POST, "", token: token, body: stale).status == 412)
            #expect(try await fixture.send(.GET, "Patient?_summary=count", token: token).json["total"] == .number("1"))

            // A batch: each entry on its own, a failing one does not stop the others.
            let batch = Self.bundle("batch", [
                Self.entry("POST", "Patient", resource: newPatient),
                Self.entry("PUT", "Observation/bad", resource: invalid),
                Self.entry("GET", "Observation/o9"),
                Self.entry("GET", "Observation?_summary=count"),
                Self.entry("DELETE", "Observation/o9"),
            ])
            let answered = try await fixture.send(.POST, "", token: token, body: batch)
            #expect(answered.status == 200 && answered.json["type"] == .string("batch-response"))
            let statuses = (answered.json["entry"]?.arrayValue ?? []).compactMap { $0.objectValue?["response"]?.objectValue?["status"]?.stringValue }
            #expect(statuses == ["201", "422", "200", "200", "204"], "\(statuses)")
            #expect(try await fixture.send(.GET, "Patient?_summary=count", token: token).json["total"] == .number("2"))
            #expect(try await fixture.send(.GET, "Observation/o9", token: token).status == 410)

            // What is not a batch or transaction is refused.
            #expect(try await fixture.send(.POST, "", token: token, body: Self.bundle("collection", [])).status == 400)
            #expect(try await fixture.send(.POST, "", token: token, body: "[]").status == 400)
            #expect(try await fixture.send(.POST, "", token: nil, body: good).status == 401)
        }
    }

    // MARK: $validate

    @Test(arguments: TestBackend.available)
    func validateAnswersAnOperationOutcomeAndStoresNothing(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture in
            let token = fixture.walletToken
            let valid = try await fixture.send(.POST, "Observation/$validate", token: token, body: Self.observation("v1"))
            #expect(valid.status == 200 && valid.json["resourceType"] == .string("OperationOutcome"))
            let validIssues = valid.json["issue"]?.arrayValue ?? []
            #expect(validIssues.count == 1 && validIssues.first?.objectValue?["severity"] == .string("information"))
            // A missing status and an unknown element: one error each, with their paths.
            let invalid = #"{"resourceType":"Observation","code":{"text":"x"},"bogus":1}"#
            let checked = try await fixture.send(.POST, "Observation/%24validate", token: token, body: invalid)
            #expect(checked.status == 200)
            let issues = (checked.json["issue"]?.arrayValue ?? []).compactMap(\.objectValue)
            #expect(issues.count >= 2 && issues.allSatisfy { $0["severity"] == .string("error") }, "\(issues)")
            let paths = issues.flatMap { $0["expression"]?.arrayValue ?? [] }.compactMap(\.stringValue)
            #expect(paths.contains { $0.contains("status") } && paths.contains { $0.contains("bogus") }, "\(paths)")
            // Inside Parameters too.
            let parameters = #"{"resourceType":"Parameters","parameter":[{"name":"resource","resource":\#(invalid)}]}"#
            #expect(try await fixture.send(.POST, "Observation/$validate", token: token, body: parameters).json["issue"]?.arrayValue?.count == issues.count)
            // Nothing was stored; the wrong type, no JSON, or no token are refused.
            #expect(try await fixture.send(.GET, "Observation?_summary=count", token: token).json["total"] == .number("0"))
            #expect(try await fixture.send(.POST, "Patient/$validate", token: token, body: invalid).status == 400)
            #expect(try await fixture.send(.POST, "Observation/$validate", token: token, body: "not json").status == 400)
            #expect(try await fixture.send(.POST, "Observation/$validate", token: nil, body: invalid).status == 401)
        }
    }
}
