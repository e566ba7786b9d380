import ExactJSON
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// Bulk Data export over real HTTP on 127.0.0.1, on SQLite and PostgreSQL: kick-off (401, 400,
/// lenient handling, `_type`, `_since`, `_outputFormat`), status polling (202 with `X-Progress`
/// and `Retry-After`, then the manifest), NDJSON files that need the token and hold exactly what
/// the client may read by id of the patients that granted it, one audit entry per patient,
/// cancel, a second server on the same database, a job resumed after its server stopped, and
/// retention.
@Suite struct BulkExportTests {
    static let confidentiality = "http://terminology.hl7.org/CodeSystem/v3-Confidentiality"

    /// One exchange with the running server; `url` may be a path or an absolute URL of the world's public base.
    static func send(_ server: RunningServer, _ method: HTTPMethod, _ url: String, token: String?, headers: [(String, String)] = [])
        async throws -> (status: Int, headers: [(String, String)], body: [UInt8]) {
        let path = url.hasPrefix(TestWorld.base) ? String(url.dropFirst(TestWorld.base.count)) : url
        var all = headers
        if let token { all.append(("Authorization", "Bearer \(token)")) }
        return try await HTTPExchange.send(method, server.baseURL + path, headers: all)
    }

    static func header(_ response: (status: Int, headers: [(String, String)], body: [UInt8]), _ name: String) -> String? {
        response.headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    static let kickoffHeaders = [("Accept", "application/fhir+json"), ("Prefer", "respond-async")]

    /// Polls the status URL until it is no longer 202; every 202 carries `X-Progress` and `Retry-After`.
    static func manifest(_ server: RunningServer, _ location: String, token: String) async throws -> JSONObject {
        for _ in 0..<2_000 {
            let status = try await send(server, .GET, location, token: token)
            if status.status == 202 {
                #expect(header(status, "X-Progress") != nil && header(status, "Retry-After") == "1")
                try await Task.sleep(for: .milliseconds(20))
                continue
            }
            try #require(status.status == 200, "\(String(decoding: status.body, as: UTF8.self))")
            #expect(header(status, "Content-Type")?.hasPrefix("application/json") == true)
            return try #require(try JSONParser.parse(status.body).objectValue)
        }
        throw TestSkip("the export did not finish")
    }

    /// Every file of a manifest, downloaded: `Type/id` of each line, and each line's type matches its file.
    static func download(_ server: RunningServer, _ manifest: JSONObject, token: String) async throws -> [String] {
        var keys: [String] = []
        for output in manifest["output"]?.arrayValue ?? [] {
            let object = try #require(output.objectValue)
            let type = try #require(object["type"]?.stringValue), url = try #require(object["url"]?.stringValue)
            let file = try await send(server, .GET, url, token: token)
            #expect(file.status == 200 && header(file, "Content-Type") == "application/fhir+ndjson")
            #expect(try await send(server, .GET, url, token: nil).status == 401)
            let lines = file.body.split(separator: UInt8(ascii: "\n"))
            #expect(file.body.last == UInt8(ascii: "\n"))
            #expect(object["count"] == .number(String(lines.count)))
            for line in lines {
                let resource = try #require(try JSONParser.parse(Array(line)).objectValue)
                #expect(resource["resourceType"]?.stringValue == type)
                keys.append("\(type)/\(resource["id"]?.stringValue ?? "")")
            }
        }
        return keys.sorted()
    }

    static func resource(_ type: String, _ id: String, label: String?) -> [UInt8] {
        let meta = label.map { #","meta":{"security":[{"system":"\#(confidentiality)","code":"\#($0)"}]}"# } ?? ""
        return Array(#"{"resourceType":"\#(type)","id":"\#(id)","status":"final"\#(meta)}"#.utf8)
    }

    @Test(arguments: TestBackend.available)
    func exportsWhatEachGrantingPatientAllowsAndNothingElse(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        let server = try await RunningServer.start(world.service)
        defer { Task { await server.stop() } }
        do {
            try await scenario(world, server)
        } catch {
            await server.stop()
            await world.close()
            throw error
        }
        await server.stop()
        await world.close()
    }

    private func scenario(_ world: TestWorld, _ server: RunningServer) async throws {
        let wallets = [try await world.register(.wallet("w1", firstName: "A")), try await world.register(.wallet("w2", firstName: "B")),
                       try await world.register(.wallet("w3", firstName: "C"))]
        let app = try await world.register(.app("backend"))
        let other = try await world.register(.app("other"))
        // Each compartment: Observations unlabelled and labelled N, R, V; a Patient; a Condition. Half written an hour ago.
        let earlier = world.now.adding(seconds: -3600)
        var change = TrustChange()
        for wallet in wallets {
            for (index, label) in [nil, "N", "R", "V", nil].enumerated() {
                let id = "o\(index)"
                change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
                    type: "Observation", id: id, patient: wallet.csi, versionID: 1, lastUpdated: index.isMultiple(of: 2) ? earlier : world.now,
                    json: Self.resource("Observation", id, label: label))))
            }
            change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: "Patient", id: "p", patient: wallet.csi, versionID: 1,
                                                                                 lastUpdated: earlier, json: Self.resource("Patient", "p", label: nil))))
            change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: "Condition", id: "c", patient: wallet.csi, versionID: 1,
                                                                                 lastUpdated: earlier, json: Self.resource("Condition", "c", label: nil))))
        }
        try await world.store.commit(change)
        // w1 grants Observations up to R; w2 Observations up to N and its Patient; w3 nothing. `other` holds w3's Observations.
        #expect(try await world.grant(from: wallets[0], to: [app], resource: "Observation", confidentiality: "R", sensitivity: []).status == 200)
        #expect(try await world.grant(from: wallets[1], to: [app], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
        #expect(try await world.grant(from: wallets[1], to: [app], resource: "Patient", confidentiality: "N", sensitivity: []).status == 200)
        #expect(try await world.grant(from: wallets[2], to: [other], resource: "Observation", sensitivity: []).status == 200)
        // w4 grants Observations up to N and holds only one labelled V: it grants the app, and nothing of it is visible.
        let hidden = try await world.register(.wallet("w4", firstName: "D"))
        var hiddenChange = TrustChange()
        hiddenChange.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: "Observation", id: "v", patient: hidden.csi, versionID: 1,
                                                                                   lastUpdated: earlier, json: Self.resource("Observation", "v", label: "V"))))
        try await world.store.commit(hiddenChange)
        #expect(try await world.grant(from: hidden, to: [app], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
        let scope = "patient/Observation.rs patient/Patient.rs patient/Condition.rs"
        func token(_ party: TestParty, patient: TestParty, scope: String = scope) async throws -> (token: String, scope: String)? {
            let response = try await world.clientCredentials(party, scope: scope, patient: patient)
            guard response.status == 200 else { return nil }
            let body = world.json(response)
            return (try #require(body["access_token"]?.stringValue), try #require(body["scope"]?.stringValue))
        }
        // The kick-off token is w2's: its scope (what w2 granted) bounds what is exported of every patient, and, bound to w2
        // (patient/ scopes with w2 in context, as SMART reads them), its jobs export w2 only, whoever else granted the app.
        let (appToken, kickoffScope) = try #require(try await token(app, patient: wallets[1]))
        // What the app may read by id with a token of that scope, patient by patient: what the export must hold.
        var readable: [String] = []
        var perPatient: [CsiGuid: [String]] = [:]
        var readableOf: [CsiGuid: [String]] = [:]
        for wallet in wallets {
            guard let patientToken = try await token(app, patient: wallet, scope: kickoffScope)?.token else { continue }
            for record in change.resources.map(\.record) where record.patient == wallet.csi {
                if await world.fhir("GET", "\(record.type)/\(record.id)", token: patientToken).status == 200 {
                    readable.append("\(record.type)/\(record.id)")
                    perPatient[wallet.csi, default: []].append(record.type)
                    readableOf[wallet.csi, default: []].append("\(record.type)/\(record.id)")
                }
            }
        }
        readable.sort()
        let hiddenToken = try #require(try await token(app, patient: hidden, scope: kickoffScope)).token
        let w2Readable = (readableOf[wallets[1].csi] ?? []).sorted()
        #expect(!w2Readable.isEmpty && w2Readable.count < readable.count)
        #expect(await world.fhir("GET", "Observation/v", token: hiddenToken).status != 200)
        // Something of two patients, some of their resources filtered out, nothing of the third.
        #expect(perPatient.count == 2 && perPatient[wallets[2].csi] == nil && readable.count < 14, "\(readable)")

        // Kick-off refusals.
        #expect(try await Self.send(server, .GET, "/fhir/Patient/$export", token: nil, headers: Self.kickoffHeaders).status == 401)
        #expect(try await Self.send(server, .GET, "/fhir/Patient/$export", token: appToken, headers: [("Accept", "application/fhir+json")]).status == 400)
        // A _typeFilter the search cannot answer exactly: an unknown parameter, a bad value, a compartment, paging, no query.
        for filter in ["Observation%3Fnope%3D1", "Observation%3Fdate%3Dsoon", "Observation%3Fpatient%3Dx", "Observation%3F_count%3D2",
                       "Observation", "Nope1%3Fstatus%3Dfinal"] {
            let unsupported = try await Self.send(server, .GET, "/fhir/Patient/$export?_typeFilter=\(filter)", token: appToken,
                                                  headers: Self.kickoffHeaders)
            #expect(unsupported.status == 400, "\(filter)")
        }
        #expect(try await Self.send(server, .GET, "/fhir/Patient/$export?_outputFormat=text/csv", token: appToken, headers: Self.kickoffHeaders).status == 400)
        #expect(try await Self.send(server, .GET, "/fhir/Patient/$export?_type=Nope1", token: appToken, headers: Self.kickoffHeaders).status == 400)
        #expect(try await Self.send(server, .GET, "/fhir/$export", token: appToken, headers: Self.kickoffHeaders).status == 403)

        // The whole export, with an ignored parameter under lenient handling.
        let auditBefore = try await world.store.auditCount()
        let kickoff = try await Self.send(server, .GET, "/fhir/Patient/$export?_outputFormat=application/fhir%2Bndjson&_typeFilter=x",
                                          token: appToken, headers: [("Accept", "application/fhir+json"), ("Prefer", "respond-async, handling=lenient")])
        try #require(kickoff.status == 202, "\(String(decoding: kickoff.body, as: UTF8.self))")
        #expect(String(decoding: kickoff.body, as: UTF8.self).contains("_typeFilter"))
        let location = try #require(Self.header(kickoff, "Content-Location"))
        #expect(location.hasPrefix(TestWorld.base + "/bulk-export/"))
        let manifest = try await Self.manifest(server, location, token: appToken)
        #expect(manifest["requiresAccessToken"] == .bool(true))
        #expect(manifest["request"]?.stringValue?.hasSuffix("/fhir/Patient/$export?_outputFormat=application/fhir%2Bndjson&_typeFilter=x") == true)
        #expect(manifest["transactionTime"]?.stringValue == world.now.wireText)
        // `Expires` is an HTTP date (IMF-fixdate) of the end of the retention, not ISO 8601.
        let completed = try await Self.send(server, .GET, location, token: appToken)
        let expires = world.now.adding(seconds: world.service.configuration.exportRetentionSeconds)
        #expect(Self.header(completed, "Expires") == FHIRController.httpDate(expires))
        #expect(Self.header(completed, "Expires")?.hasSuffix(" GMT") == true)
        // w2's resources only: w1 granted the app too, but the token is w2's.
        #expect(try await Self.download(server, manifest, token: appToken) == w2Readable)
        let jobID = String(location.split(separator: "/").last ?? "")
        #expect(try await world.store.exportJob(id: jobID)?.kind == "patient;patient=\(wallets[1].csi.rawValue)")
        // What lenient handling ignored is the manifest's error file: one OperationOutcome naming it.
        let errors = try #require(manifest["error"]?.arrayValue)
        try #require(errors.count == 1)
        #expect(errors[0]["type"] == .string("OperationOutcome") && errors[0]["count"] == .number("1"))
        let errorFile = try await Self.send(server, .GET, try #require(errors[0]["url"]?.stringValue), token: appToken)
        #expect(errorFile.status == 200 && Self.header(errorFile, "Content-Type") == "application/fhir+ndjson")
        let outcome = try #require(try JSONParser.parse(Array(errorFile.body.dropLast())).objectValue)
        #expect(outcome["resourceType"] == .string("OperationOutcome"))
        #expect(outcome["issue"]?.arrayValue?.first?["diagnostics"]?.stringValue?.hasSuffix("_typeFilter=x") == true)
        // One audit entry per patient the job covered, with its counts: w2's only.
        let entries = try await world.store.auditRecords(from: auditBefore, limit: 100).compactMap { try? AuditEntry(canonicalBytes: $0.canonicalBytes) }
            .filter { $0.reason?.hasPrefix("bulk-export") == true }
        #expect(entries.compactMap(\.patient) == [wallets[1].csi.rawValue])
        func checkEntries(_ entries: [AuditEntry]) throws {
            for entry in entries {
                let types = perPatient[try #require(CsiGuid(entry.patient ?? ""))] ?? []
                #expect(entry.agent == app.csi.rawValue && entry.resources == Array(Set(types)).sorted())
                if types.isEmpty {
                    // w4, which granted the app but has nothing visible, is audited all the same.
                    #expect(entry.patient == hidden.csi.rawValue && entry.reason == "bulk-export nothing", "\(entry)")
                } else {
                    #expect(entry.reason?.contains("Observation=\(types.count { $0 == "Observation" })") == true)
                }
            }
        }
        try checkEntries(entries)
        // w4's token exports nothing, and the job is w4's one entry, 'bulk-export nothing'.
        let hiddenAuditBefore = try await world.store.auditCount()
        let hiddenKickoff = try await Self.send(server, .GET, "/fhir/Patient/$export", token: hiddenToken, headers: Self.kickoffHeaders)
        try #require(hiddenKickoff.status == 202)
        let hiddenManifest = try await Self.manifest(server, try #require(Self.header(hiddenKickoff, "Content-Location")), token: hiddenToken)
        #expect(try await Self.download(server, hiddenManifest, token: hiddenToken) == [])
        let hiddenEntries = try await world.store.auditRecords(from: hiddenAuditBefore, limit: 100)
            .compactMap { try? AuditEntry(canonicalBytes: $0.canonicalBytes) }.filter { $0.reason?.hasPrefix("bulk-export") == true }
        #expect(hiddenEntries.map(\.patient) == [hidden.csi.rawValue] && hiddenEntries.map(\.reason) == ["bulk-export nothing"])
        // The patient reads the counts in its AuditEvents (what `health wallet audit` prints).
        let walletToken = try #require(world.json(try await world.clientCredentials(wallets[1], scope: "patient/*.cruds conf/V"))["access_token"]?
            .stringValue)
        let events = world.json(await world.fhir("GET", "AuditEvent?_count=1000", token: walletToken))["entry"]?.arrayValue ?? []
        let descriptions = events.compactMap { $0["resource"]?["outcomeDesc"]?.stringValue }.filter { $0.hasPrefix("bulk-export ") }
        let ownEntry = try #require(entries.first { $0.patient == wallets[1].csi.rawValue })
        #expect(descriptions == [ownEntry.reason], "\(descriptions)")
        // Another client's token sees no such job; the files need the job's client.
        let otherToken = try #require(try await token(other, patient: wallets[2], scope: "patient/Observation.rs")).token
        #expect(try await Self.send(server, .GET, location, token: otherToken).status == 404)
        let firstURL = try #require(manifest["output"]?.arrayValue?.first?.objectValue?["url"]?.stringValue)
        #expect(try await Self.send(server, .GET, firstURL, token: otherToken).status == 404)

        // A second server on the same database answers the status and serves the files.
        try await world.withTwin { twin in
            let second = try await RunningServer.start(twin.service)
            do {
                #expect(try await Self.download(second, try await Self.manifest(second, location, token: appToken), token: appToken) == w2Readable)
            } catch {
                await second.stop()
                throw error
            }
            await second.stop()
        }

        // `_type` and `_since`.
        let since = world.now.adding(seconds: -60).wireText
        let filtered = try await Self.send(server, .GET, "/fhir/Patient/%24export?_type=Observation,Condition&_since=\(since)&_outputFormat=ndjson",
                                           token: appToken, headers: Self.kickoffHeaders)
        try #require(filtered.status == 202)
        let filteredManifest = try await Self.manifest(server, try #require(Self.header(filtered, "Content-Location")), token: appToken)
        let recent = change.resources.map(\.record).filter { !($0.lastUpdated < world.now.adding(seconds: -60)) && $0.type != "Patient" }
            .map { "\($0.type)/\($0.id)" }
        #expect(try await Self.download(server, filteredManifest, token: appToken) == w2Readable.filter { recent.contains($0) && !$0.hasPrefix("Patient/") })

        // `_typeFilter` (and `$` percent-encoded at the system level: 403 all the same): two queries on Observation
        // (either may match), none on Condition or Patient.
        #expect(try await Self.send(server, .GET, "/fhir/%24export", token: appToken, headers: Self.kickoffHeaders).status == 403)
        let typeFiltered = try await Self.send(server, .GET, "/fhir/Patient/$export?_typeFilter=Observation%3F_security%3DN%2CObservation%3F_security%3DR",
                                               token: appToken, headers: Self.kickoffHeaders)
        try #require(typeFiltered.status == 202, "\(String(decoding: typeFiltered.body, as: UTF8.self))")
        let typeFilteredManifest = try await Self.manifest(server, try #require(Self.header(typeFiltered, "Content-Location")), token: appToken)
        let byLabel = w2Readable.filter { !$0.hasPrefix("Observation/") || $0 == "Observation/o1" || $0 == "Observation/o2" }
        #expect(byLabel.contains("Observation/o1") && byLabel.count < w2Readable.count)
        #expect(try await Self.download(server, typeFilteredManifest, token: appToken) == byLabel)
        #expect(typeFilteredManifest["error"] == .array([]))

        // Groups: the app makes one of w1 (granted) and exports it; a Group with w3 (granted `other` only) is refused;
        // another client's Group is 403, an unknown one 404; a malformed Group 400.
        func member(_ party: TestParty) -> String { #"{"entity":{"reference":"Patient/\#(party.csi.rawValue)"}}"# }
        func postGroup(_ members: [TestParty], token: String) async throws -> (status: Int, headers: [(String, String)], body: [UInt8]) {
            let body = #"{"resourceType":"Group","type":"person","actual":true,"member":[\#(members.map(member).joined(separator: ","))]}"#
            return try await HTTPExchange.send(.POST, server.baseURL + "/fhir/Group", headers: [("Authorization", "Bearer \(token)"),
                                                                                               ("Content-Type", "application/fhir+json")],
                                               body: Array(body.utf8))
        }
        let groupAuditBefore = try await world.store.auditCount()
        let created = try await postGroup([wallets[0]], token: appToken)
        try #require(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let groupID = try #require(try JSONParser.parse(created.body)["id"]?.stringValue)
        #expect(Self.header(created, "Location") == "\(TestWorld.base)/fhir/Group/\(groupID)")
        #expect(try await postGroup([wallets[0], wallets[2]], token: appToken).status == 403)
        // Both audited as the app's creates: the Group made, and the one refused.
        let groupEntries = try await world.store.auditRecords(from: groupAuditBefore, limit: 100)
            .compactMap { try? AuditEntry(canonicalBytes: $0.canonicalBytes) }.filter { $0.resources.first?.hasPrefix("Group") == true }
        #expect(groupEntries.map(\.resources) == [["Group/\(groupID)"], ["Group"]], "\(groupEntries)")
        #expect(groupEntries.allSatisfy { $0.agent == app.csi.rawValue && $0.action == "C" })
        #expect(groupEntries.map(\.outcome) == [.success, .minorFailure] && groupEntries.last?.reason == "not_granted")
        #expect(try await HTTPExchange.send(.POST, server.baseURL + "/fhir/Group", headers: [("Authorization", "Bearer \(appToken)")],
                                            body: Array(#"{"resourceType":"Group","member":[{"entity":{"reference":"Patient/x"}}]}"#.utf8)).status == 400)
        #expect(try await HTTPExchange.send(.POST, server.baseURL + "/fhir/Group", headers: [], body: Array("{}".utf8)).status == 401)
        let othersGroup = try await postGroup([wallets[2]], token: otherToken)
        try #require(othersGroup.status == 201)
        let othersID = try #require(try JSONParser.parse(othersGroup.body)["id"]?.stringValue)
        #expect(try await Self.send(server, .GET, "/fhir/Group/\(othersID)/$export", token: appToken, headers: Self.kickoffHeaders).status == 403)
        #expect(try await Self.send(server, .GET, "/fhir/Group/0123456789abcdef/$export", token: appToken, headers: Self.kickoffHeaders).status == 404)
        // The app's w2 token exports nothing of the Group (w1 only); its w1 token, w1's resources.
        let w2GroupKickoff = try await Self.send(server, .GET, "/fhir/Group/\(groupID)/$export", token: appToken, headers: Self.kickoffHeaders)
        try #require(w2GroupKickoff.status == 202, "\(String(decoding: w2GroupKickoff.body, as: UTF8.self))")
        let w2GroupManifest = try await Self.manifest(server, try #require(Self.header(w2GroupKickoff, "Content-Location")), token: appToken)
        #expect(try await Self.download(server, w2GroupManifest, token: appToken) == [])
        let w1Token = try #require(try await token(app, patient: wallets[0], scope: kickoffScope)).token
        let groupKickoff = try await Self.send(server, .GET, "/fhir/Group/\(groupID)/%24export", token: w1Token, headers: Self.kickoffHeaders)
        try #require(groupKickoff.status == 202, "\(String(decoding: groupKickoff.body, as: UTF8.self))")
        let groupManifest = try await Self.manifest(server, try #require(Self.header(groupKickoff, "Content-Location")), token: w1Token)
        let w1Readable = (readableOf[wallets[0].csi] ?? []).sorted()
        #expect(!w1Readable.isEmpty && w1Readable.count < readable.count)
        #expect(try await Self.download(server, groupManifest, token: w1Token) == w1Readable)

        // Cancel: the job and its files are gone.
        #expect(try await Self.send(server, .DELETE, location, token: appToken).status == 202)
        #expect(try await Self.send(server, .GET, location, token: appToken).status == 404)
        #expect(try await Self.send(server, .GET, firstURL, token: appToken).status == 404)
        #expect(try await world.store.exportOutputs(id: jobID).isEmpty)

        // The transactionTime is the cut-off: an Observation w2 writes after it (the jobs below were
        // kicked off at `world.now` and run only later) is readable by the app but in no file.
        var late = TrustChange()
        late.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: "Observation", id: "late", patient: wallets[1].csi, versionID: 1,
                                                                           lastUpdated: world.now.adding(seconds: 5),
                                                                           json: Self.resource("Observation", "late", label: nil))))
        try await world.store.commit(late)
        let w2Token = try #require(try await token(app, patient: wallets[1], scope: kickoffScope)).token
        #expect(await world.fhir("GET", "Observation/late", token: w2Token).status == 200)
        // A job kicked off before it (queued, never run) by a token bound to no patient (its kind without `;patient=`,
        // as a system/ token's): every granting patient's whole compartment, as of its transactionTime, each patient it
        // covered audited (w4 too, with nothing).
        let queuedAuditBefore = try await world.store.auditCount()
        let queued = StoredExportJob(id: "queued0123456789", client: app.csi, tokenID: "t", scope: kickoffScope, kind: "patient",
                                     request: "\(TestWorld.base)/fhir/Patient/$export", types: [], since: nil,
                                     transactionTime: world.now, expiresAt: world.now.adding(seconds: 86_400))
        try await world.store.createExportJob(queued)
        #expect(try await Self.download(server, try await Self.manifest(server, "/bulk-export/\(queued.id)", token: appToken), token: appToken) == readable)
        let queuedEntries = try await world.store.auditRecords(from: queuedAuditBefore, limit: 100)
            .compactMap { try? AuditEntry(canonicalBytes: $0.canonicalBytes) }.filter { $0.reason?.hasPrefix("bulk-export") == true }
        #expect(queuedEntries.compactMap(\.patient).sorted() == (perPatient.keys.map(\.rawValue) + [hidden.csi.rawValue]).sorted())
        try checkEntries(queuedEntries)

        // A job whose server stopped (its lease ran out) is taken over by the next status request.
        let orphan = StoredExportJob(id: "orphan0123456789", client: app.csi, tokenID: "t", scope: kickoffScope, kind: "patient",
                                     request: "\(TestWorld.base)/fhir/Patient/$export", types: ["Observation"], since: nil,
                                     transactionTime: world.now, expiresAt: world.now.adding(seconds: 86_400))
        try await world.store.createExportJob(orphan)
        #expect(try await world.store.claimExportJob(id: orphan.id, owner: "stopped-server", now: world.now, leaseUntil: world.now.adding(seconds: 10)))
        #expect(try await world.store.appendExportChunk(ExportChunk(jobID: orphan.id, type: "Observation", sequence: 0, lineCount: 1,
                                                                    bytes: Array("{\"resourceType\":\"Observation\",\"id\":\"stale\"}\n".utf8)),
                                                         owner: "stopped-server", progress: "1 of 2", leaseUntil: world.now.adding(seconds: 10)))
        let waiting = try await Self.send(server, .GET, "/bulk-export/\(orphan.id)", token: appToken)
        #expect(waiting.status == 202 && Self.header(waiting, "X-Progress") == "1 of 2")
        world.clock.advance(seconds: 11)
        let resumed = try await Self.manifest(server, "/bulk-export/\(orphan.id)", token: appToken)
        // Taken over 11 s later, it still stops at its transactionTime: no Observation/late.
        #expect(try await Self.download(server, resumed, token: appToken) == readable.filter { $0.hasPrefix("Observation/") })

        // Retention: after --export-retention the job answers 404 and the next kick-off deletes it.
        world.clock.advance(seconds: world.service.configuration.exportRetentionSeconds + 1)
        let fresh = try #require(try await token(app, patient: wallets[1])).token
        #expect(try await Self.send(server, .GET, "/bulk-export/\(orphan.id)", token: fresh).status == 404)
        #expect(try await Self.send(server, .GET, "/fhir/Patient/$export?_type=Patient", token: fresh, headers: Self.kickoffHeaders).status == 202)
        #expect(try await world.store.exportJob(id: orphan.id) == nil)
        #expect(try await world.store.exportOutputs(id: orphan.id).isEmpty)
    }

    /// The CapabilityStatement declares the Bulk Data IG and the export operations the server answers
    /// (system, Patient, Group), and the SMART configuration the backend-services grant it takes.
    @Test func discoveryDeclaresTheExportOperations() async throws {
        let world = try await TestWorld.make(.sqlite)
        let metadata = world.json(await world.fhir("GET", "metadata", token: nil))
        #expect(metadata["instantiates"] == .array([.string("http://hl7.org/fhir/uv/bulkdata/CapabilityStatement/bulk-data")]))
        let rest = try #require(metadata["rest"]?.arrayValue?.first)
        func exportDefinition(_ operations: JSONValue?) -> String? {
            operations?.arrayValue?.first { $0["name"] == .string("export") }?["definition"]?.stringValue
        }
        let base = "http://hl7.org/fhir/uv/bulkdata/OperationDefinition/"
        #expect(exportDefinition(rest["operation"]) == base + "export")
        let resources = rest["resource"]?.arrayValue ?? []
        #expect(exportDefinition(resources.first { $0["type"] == .string("Patient") }?["operation"]) == base + "patient-export")
        let group = resources.first { $0["type"] == .string("Group") }
        #expect(exportDefinition(group?["operation"]) == base + "group-export")
        #expect(group?["interaction"] == .array(["read", "create"].map { .object(JSONObject(members: [JSONMember(key: "code", value: .string($0))])) }))
        let configuration = world.json(world.service.smartConfiguration())
        #expect(configuration["grant_types_supported"]?.arrayValue?.contains(.string("client_credentials")) == true)
        #expect(configuration["token_endpoint_auth_methods_supported"]?.arrayValue?.contains(.string("private_key_jwt")) == true)
        await world.close()
    }

    /// The kick-off parameters, as a property: random queries of known and unknown parameters are
    /// read or refused (never a crash); lenient reading never refuses a supported query for an
    /// unsupported name, and names each ignored one.
    @Test func parametersAreReadOrRefused() {
        var generator = SplitMix64(seed: 0xB0_1C_E7)
        let names = ["_type", "_since", "_outputFormat", "_typeFilter", "patient", "_elements", "x%", "%ZZ", "", "_type=", "&"]
        let values = ["Observation", "Observation,Patient", "observation", "*", "", "2026-01-01T00:00:00Z", "2026-13-01", "ndjson",
                      "application/ndjson", "text/csv", "%2C", "Observation,,Patient", "%E2%82", "Observation%3Fstatus%3Dfinal",
                      "Observation%3Fstatus%3Dfinal%2CPatient%3Fgender%3D%25ZZ", "Observation%3Fdate%3Dge2026-01-01%26code%3Da%252Cb",
                      "Observation%3F_sort%3Ddate", "Condition%3F", "%3Fstatus%3Dx", "Observation%3Fstatus%3Afoo%3Dx"]
        for _ in 0..<2_000 {
            let query = (0..<generator.int(0...4)).map { _ in
                names[generator.below(names.count)] + "=" + values[generator.below(values.count)]
            }.joined(separator: "&")
            let strict = try? BulkExportParameters(query: query, lenient: false)
            let lenient = try? BulkExportParameters(query: query, lenient: true)
            if let strict {
                #expect(strict.ignored.isEmpty)
                #expect(lenient == strict, "\(query)")
            }
            if let lenient { #expect(lenient.types.allSatisfy { ResourceScope($0) != nil && $0 != "*" }) }
        }
        #expect((try? BulkExportParameters(query: "_type=Observation,Patient&_type=Observation", lenient: false))?.types == ["Observation", "Patient"])
        #expect((try? BulkExportParameters(query: "_since=2026-01-01T00:00:00Z", lenient: false))?.since
                == Timestamp(wireText: "2026-01-01T00:00:00.000Z"))
        #expect((try? BulkExportParameters(query: "_typeFilter=x", lenient: true))?.ignored == ["_typeFilter=x"])
        let filters = try? BulkExportParameters(query: "_typeFilter=Observation%3Fstatus%3Dfinal%2CCondition%3Fcode%3Dhttp%3A%2F%2Fs%7C1", lenient: false)
        #expect(filters?.typeFilters["Observation"]?.count == 1 && filters?.typeFilters["Condition"]?.count == 1)
    }
}
