import FHIRCore
import Foundation
import HealthRecords
import HTTPTestSupport
import Hummingbird
import Logging
import NIOCore
import OpenHealthKit
@testable import RecordsSync
import SmartHealthCards
import Synchronization
import Testing

/// A sync against a plain FHIR server on loopback (not FhirBlocks) that pages its results with
/// `next` links, expires the first access token, and fails halfway once: nothing half-written,
/// the sync resumes, the refreshed tokens are kept, and the next sync asks only for changes.
struct RecordsSynchronizerTests {
    @Test func pagedSyncStopsCleanlyResumesAndAsksOnlyForChanges() async throws {
        let server = try await ScriptedFHIRServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("records-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = server.base
        let store = try await Self.store(in: folder, connectedTo: base, tokenExpiry: Date(timeIntervalSinceNow: -60))
        let http = SMARTHTTP(timeout: .seconds(30))
        let synchronizer = RecordsSynchronizer(store: store, http: http, verifier: SHCVerifier(resolver: StaticKeyResolver([:]), now: Date()),
                                               options: .init(pageSize: 2))
        func stored() async throws -> RecordsConnection {
            try #require(try await RecordsSynchronizer.connections(in: store).first)
        }
        func labRecords() async throws -> [HKSample] {
            try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.labResultRecord))], sortDescriptors: []).result(for: store)
        }

        // The second Observation page fails once: the first page is stored with the state that
        // says so, the type's mark does not move, the types done before keep theirs.
        server.failObservationPage(1)
        await #expect(throws: RecordsSyncError.fhir("searching Observation answered 500")) { _ = try await synchronizer.sync(named: "clinic") }
        #expect(try await labRecords().count == 2)
        var state = try await stored()
        #expect(state.marks["Observation"] == nil)
        #expect(state.pending["Observation"] == "2026-03-01T00:00:00Z")
        // The next link of the last stored page was saved with it.
        #expect(state.cursors["Observation"] == "\(base)/Observation?page=1")
        #expect(state.marks["Condition"] == "2026-03-01T00:00:00Z")
        // The expired token was refreshed first and the rotated refresh token kept.
        #expect(state.tokens.accessToken == "t2" && state.tokens.refreshToken == "r2")
        #expect(server.requests().allSatisfy { $0.bearer == "t2" || $0.path == "/fhir/token" })

        // Resumed at the saved next link (page 1, not the search again), everything stored once.
        server.clearRequests()
        let report = try await synchronizer.sync(named: "clinic")
        #expect(try await labRecords().count == 6)
        #expect(report.fetchedByType["Observation"] == 4 && report.pages >= 2)
        #expect(report.fetchedByType["Condition"] == 0)
        state = try await stored()
        #expect(state.marks["Observation"] == "2026-03-01T00:00:00Z" && state.pending.isEmpty && state.cursors.isEmpty && state.lastSyncAt != nil)
        let first = server.requests().filter { $0.path == "/fhir/Observation" }
        #expect(first.map(\.query) == ["page=1", "page=2"])
        for record in try await labRecords() {
            let resource = try #require((record as? HKClinicalRecord)?.fhirResource)
            #expect(resource.sourceURL?.absoluteString == "\(base)/Observation/\(resource.identifier)")
        }

        // Next sync: only changes since the server's mark are asked for (`+` and `:` encoded).
        server.clearRequests()
        _ = try await synchronizer.sync(named: "clinic")
        let again = server.requests().filter { $0.path == "/fhir/Observation" }.first?.query
        #expect(again == "patient=p1&_count=2&_lastUpdated=gt2026-03-01T00%3A00%3A00Z")
        #expect(try await labRecords().count == 6)

        // Refresh refused: the connection must be renewed, and nothing more is stored.
        server.revoke()
        let renew = RecordsSyncError.connectionMustBeRenewed("the server no longer accepts the access token and the refresh was refused (invalid_grant)")
        await #expect(throws: renew) {
            _ = try await synchronizer.sync(named: "clinic")
        }
        #expect(try await labRecords().count == 6)
        try await http.shutdown()
        await server.stop()
    }
}

extension RecordsSynchronizerTests {
    /// A new store in `folder` holding the connection `clinic` to `base` (patient p1, tokens
    /// t1/r1, the access token expiring at `tokenExpiry`).
    static func store(in folder: URL, connectedTo base: String, tokenExpiry: Date?) async throws -> HKHealthStore {
        let store = HKHealthStore(configuration: .init(location: .file(folder.appendingPathComponent("health.sqlite")),
                                                       key: .keyFile(folder.appendingPathComponent("health.key")), role: .owner))
        let connection = RecordsConnection(name: "clinic", fhirBase: base,
                                           endpoints: SMARTEndpoints(authorization: "\(base)/authorize", token: "\(base)/token", registration: nil),
                                           clientID: "c1", redirectURI: "http://127.0.0.1:1/callback", patient: "p1",
                                           tokens: TokenGrant(accessToken: "t1", expiresAt: tokenExpiry, refreshToken: "r1", scope: nil, patient: "p1"),
                                           connectedAt: Date())
        try await store.saveHealthRecordsConnection(connection.stored())
        return store
    }

    /// A saved next link the server no longer answers (410) is dropped, and the type is searched
    /// again from its mark: nothing is lost and nothing stored twice.
    @Test func expiredCursorFallsBackToTheSearch() async throws {
        let server = try await ScriptedFHIRServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("records-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await Self.store(in: folder, connectedTo: server.base, tokenExpiry: nil)
        let http = SMARTHTTP(timeout: .seconds(30))
        let synchronizer = RecordsSynchronizer(store: store, http: http, verifier: SHCVerifier(resolver: StaticKeyResolver([:]), now: Date()),
                                               options: .init(pageSize: 2, resourceTypes: ["Observation"]))
        server.failObservationPage(2)
        await #expect(throws: RecordsSyncError.fhir("searching Observation answered 500")) { _ = try await synchronizer.sync(named: "clinic") }
        server.forgetCursors()
        server.clearRequests()
        let report = try await synchronizer.sync(named: "clinic")
        #expect(server.requests().filter { $0.path == "/fhir/Observation" }.map(\.query) == ["page=2", "patient=p1&_count=2", "page=1", "page=2"])
        #expect(report.fetchedByType["Observation"] == 6)
        let records = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.labResultRecord))], sortDescriptors: [])
            .result(for: store)
        #expect(records.count == 6)
        let state = try #require(try await RecordsSynchronizer.connections(in: store).first)
        #expect(state.cursors.isEmpty && state.marks["Observation"] == "2026-03-01T00:00:00Z")
        try await http.shutdown()
        await server.stop()
    }

    /// One person per store: a connection whose Patient is not the owner of the profile is not
    /// synced (both named), unless the options allow another person; a matching one is.
    @Test func anotherPersonsConnectionIsNotSynced() async throws {
        let server = try await ScriptedFHIRServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("records-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await Self.store(in: folder, connectedTo: server.base, tokenExpiry: nil)
        try await store.saveOwnerProfile(HKOwnerProfile(givenName: "Zelinda", familyName: "Quarrington",
                                                         dateOfBirth: DateComponents(year: 1984, month: 2, day: 29)))
        server.servePatient(#"{"resourceType":"Patient","id":"p1","name":[{"family":"Castellanos","given":["Antonio"]}],"birthDate":"1962-09-28"}"#)
        let http = SMARTHTTP(timeout: .seconds(30))
        let verifier = SHCVerifier(resolver: StaticKeyResolver([:]), now: Date())
        func labRecords() async throws -> Int {
            try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.labResultRecord))],
                                              sortDescriptors: []).result(for: store).count
        }
        let refusing = RecordsSynchronizer(store: store, http: http, verifier: verifier, options: .init(resourceTypes: ["Observation"]))
        await #expect(throws: RecordsSyncError.otherPerson(patient: "Antonio Castellanos (born 1962-09-28)",
                                                          owner: "Zelinda Quarrington (born 1984-02-29)")) {
            _ = try await refusing.sync(named: "clinic")
        }
        #expect(try await labRecords() == 0)
        #expect(!server.requests().contains { $0.path == "/fhir/Observation" })

        let allowing = RecordsSynchronizer(store: store, http: http, verifier: verifier,
                                           options: .init(resourceTypes: ["Observation"], allowOtherPerson: true))
        _ = try await allowing.sync(named: "clinic")
        #expect(try await labRecords() == 6)

        server.servePatient(#"{"resourceType":"Patient","id":"p1","name":[{"family":"quarrington","given":["Z."]}],"birthDate":"1984-02-29"}"#)
        let report = try await refusing.sync(named: "clinic")
        #expect(report.records.refusals.isEmpty)
        try await http.shutdown()
        await server.stop()
    }

    /// The connection's Patient names the synced records, as an imported Patient does: those
    /// synced before it could be read, in place (no record twice), and those synced after it.
    @Test func theConnectionsPatientNamesItsRecords() async throws {
        let server = try await ScriptedFHIRServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("records-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await Self.store(in: folder, connectedTo: server.base, tokenExpiry: nil)
        let http = SMARTHTTP(timeout: .seconds(30))
        let verifier = SHCVerifier(resolver: StaticKeyResolver([:]), now: Date())
        func people() async throws -> [HealthRecordPatient?] {
            try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.labResultRecord))],
                                              sortDescriptors: []).result(for: store).map { HealthRecordPatient(metadata: $0.metadata) }
        }
        // No profile, and the Patient cannot be read (404): the records keep their reference, unnamed.
        let synchronizer = RecordsSynchronizer(store: store, http: http, verifier: verifier, options: .init(pageSize: 2, resourceTypes: ["Observation"]))
        _ = try await synchronizer.sync(named: "clinic")
        let before = try await people()
        #expect(before.count == 6)
        #expect(before.allSatisfy { $0?.reference == "Patient/p1" && $0?.person == nil }, "\(before)")

        // Readable now: the stored records are named after it, and synced again they are not stored twice.
        server.servePatient(#"{"resourceType":"Patient","id":"p1","name":[{"family":"Quarrington","given":["Zelinda"]}],"birthDate":"1984-02-29"}"#)
        _ = try await synchronizer.sync(named: "clinic")
        let zelinda = HealthRecordPerson(givenNames: ["Zelinda"], familyName: "Quarrington", birthDate: "1984-02-29")
        let after = try await people()
        #expect(after.count == 6)
        #expect(after.allSatisfy { $0?.reference == "Patient/p1" && $0?.person == zelinda }, "\(after)")

        // A store synced from the start with the Patient readable names every record as it stores it.
        let freshFolder = FileManager.default.temporaryDirectory.appendingPathComponent("records-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: freshFolder) }
        let fresh = try await Self.store(in: freshFolder, connectedTo: server.base, tokenExpiry: nil)
        _ = try await RecordsSynchronizer(store: fresh, http: http, verifier: verifier, options: .init(resourceTypes: ["Observation"]))
            .sync(named: "clinic")
        let named = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.labResultRecord))],
                                                      sortDescriptors: []).result(for: fresh).map { HealthRecordPatient(metadata: $0.metadata) }
        #expect(named.count == 6 && named.allSatisfy { $0?.person == zelinda }, "\(named)")
        try await http.shutdown()
        await server.stop()
    }

    /// A Patient that cannot be read refuses the sync (whose records they are cannot be checked),
    /// unless another person's records are allowed; a page holding another person's Patient
    /// stops the sync before that page is stored.
    @Test func unreadablePatientAndAnotherPersonOnAPageAreRefused() async throws {
        let server = try await ScriptedFHIRServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("records-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await Self.store(in: folder, connectedTo: server.base, tokenExpiry: nil)
        try await store.saveOwnerProfile(HKOwnerProfile(givenName: "Zelinda", familyName: "Quarrington",
                                                         dateOfBirth: DateComponents(year: 1984, month: 2, day: 29)))
        let http = SMARTHTTP(timeout: .seconds(30))
        let verifier = SHCVerifier(resolver: StaticKeyResolver([:]), now: Date())
        func labRecords() async throws -> Int {
            try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.labResultRecord))],
                                              sortDescriptors: []).result(for: store).count
        }
        let refusing = RecordsSynchronizer(store: store, http: http, verifier: verifier, options: .init(pageSize: 2, resourceTypes: ["Observation"]))
        // The Patient read answers 404.
        await #expect(throws: RecordsSyncError.patientUnreadable("the server answered 404", owner: "Zelinda Quarrington (born 1984-02-29)")) {
            _ = try await refusing.sync(named: "clinic")
        }
        #expect(try await labRecords() == 0)
        #expect(!server.requests().contains { $0.path == "/fhir/Observation" })

        // The connection's Patient is the owner, but the second page includes another person's Patient.
        server.servePatient(#"{"resourceType":"Patient","id":"p1","name":[{"family":"Quarrington","given":["Zelinda"]}],"birthDate":"1984-02-29"}"#)
        server.includePatientOnSecondPage(
            #"{"resourceType":"Patient","id":"p9","name":[{"family":"Castellanos","given":["Antonio"]}],"birthDate":"1962-09-28"}"#)
        await #expect(throws: RecordsSyncError.otherPerson(patient: "Antonio Castellanos (born 1962-09-28)",
                                                          owner: "Zelinda Quarrington (born 1984-02-29)")) {
            _ = try await refusing.sync(named: "clinic")
        }
        #expect(try await labRecords() == 2, "only the first page is stored")

        // Allowed: the unreadable Patient is not read for a check, and every page is stored.
        server.servePatient(nil)
        let allowing = RecordsSynchronizer(store: store, http: http, verifier: verifier,
                                           options: .init(pageSize: 2, resourceTypes: ["Observation"], allowOtherPerson: true))
        _ = try await allowing.sync(named: "clinic")
        #expect(try await labRecords() == 6)
        try await http.shutdown()
        await server.stop()
    }
}

extension RecordsSynchronizerTests {
    /// A card that does not verify (signed by a key its issuer does not publish) is reported as
    /// refused and not stored; the clinical records of the same sync are.
    @Test func cardThatDoesNotVerifyIsReportedNotStored() async throws {
        let server = try await ScriptedFHIRServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("records-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await Self.store(in: folder, connectedTo: server.base, tokenExpiry: nil)
        let issuer = "https://issuer.example"
        let bundle = #"""
            {"resourceType":"Bundle","type":"collection","entry":[{"fullUrl":"resource:0","resource":{"resourceType":"Patient",\#
            "name":[{"family":"A"}],"birthDate":"1970-01-01"}},{"fullUrl":"resource:1","resource":{"resourceType":"Immunization",\#
            "status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]},\#
            "patient":{"reference":"resource:0"},"occurrenceDateTime":"2021-01-01"}}]}
            """#
        let card = try SHCIssuer(key: .generate(), issuer: issuer).issue(bundle: Array(bundle.utf8), nbf: Date())
        server.issueCards(#"{"resourceType":"Parameters","parameter":[{"name":"verifiableCredential","valueString":"\#(card)"}]}"#)
        // The verifier knows the issuer, with another key than the one that signed.
        let published = SHCJWKSet(keys: [SHCIssuerKey.generate().publicJWK])
        let http = SMARTHTTP(timeout: .seconds(30))
        let synchronizer = RecordsSynchronizer(store: store, http: http,
                                               verifier: SHCVerifier(resolver: StaticKeyResolver([issuer: published]), now: Date()),
                                               options: .init(pageSize: 2, resourceTypes: ["Observation"]))
        let report = try await synchronizer.sync(named: "clinic")
        #expect(report.cardsOffered)
        #expect(report.records.refusals.count == 1 && report.records.refusals.first?.location == "card 1", "\(report.records.refusals)")
        #expect(report.records.stored.count == 6)
        let cards = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[HKVerifiableClinicalRecord], any Error>) in
            store.execute(HKVerifiableClinicalRecordQuery(recordTypes: [], predicate: nil) { _, records, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: records ?? []) }
            })
        }
        #expect(cards.isEmpty)
        try await http.shutdown()
        await server.stop()
    }
}

/// A FHIR server with Observations on three pages of two, a token endpoint that rotates tokens,
/// and switches a test flips.
final class ScriptedFHIRServer: Sendable {
    struct Request: Sendable {
        var path: String
        var query: String
        var bearer: String?
    }

    private struct State {
        var failPage: Int?
        var cursorsGone = false
        var cardsParameters: String?
        var patient: String?
        var pagePatient: String?
        var revoked = false
        var token = "t1"
        var refresh = "r1"
        var requests: [Request] = []
    }

    private let state = Mutex(State())
    private let application = Mutex<LoopbackApplication?>(nil)
    private let baseURL = Mutex("")

    /// The FHIR base, `http://127.0.0.1:PORT/fhir`.
    var base: String { baseURL.withLock { $0 } }

    private init() {}

    func failObservationPage(_ page: Int) { state.withLock { $0.failPage = page } }
    /// Answers `GET /fhir/Patient/ID` with this resource (404 until set).
    func servePatient(_ resource: String?) { state.withLock { $0.patient = resource } }
    /// Adds this Patient (an included entry) to the second page of Observations.
    func includePatientOnSecondPage(_ resource: String?) { state.withLock { $0.pagePatient = resource } }
    func revoke() { state.withLock { $0.revoked = true } }
    /// Offers `$health-cards-issue` in `/fhir/metadata` and answers it with `parameters`.
    func issueCards(_ parameters: String) { state.withLock { $0.cardsParameters = parameters } }
    /// The next links handed out so far answer 410 Gone, once.
    func forgetCursors() { state.withLock { $0.cursorsGone = true } }
    func requests() -> [Request] { state.withLock { $0.requests } }
    func clearRequests() { state.withLock { $0.requests = [] } }

    func stop() async {
        await application.withLock { $0 }?.stop()
    }

    static func observation(_ index: Int) -> String {
        #"{"resourceType":"Observation","id":"o\#(index)","status":"final","code":{"text":"test \#(index)"},"subject":{"reference":"Patient/p1"},"# +
            #""meta":{"lastUpdated":"2026-01-0\#(index)T00:00:00Z"}}"#
    }

    static func start() async throws -> ScriptedFHIRServer {
        let server = ScriptedFHIRServer()
        let router = Router()
        router.post("fhir/token") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 16))
            let answer: (HTTPResponse.Status, String) = server.state.withLock { state in
                state.requests.append(Request(path: "/fhir/token", query: "", bearer: nil))
                guard !state.revoked, body.contains("refresh_token=\(state.refresh)") else {
                    return (.badRequest, #"{"error":"invalid_grant"}"#)
                }
                state.token = "t\(Int(state.token.dropFirst())! + 1)"
                state.refresh = "r\(Int(state.refresh.dropFirst())! + 1)"
                return (.ok, #"{"access_token":"\#(state.token)","token_type":"Bearer","expires_in":300,"refresh_token":"\#(state.refresh)"}"#)
            }
            return Response(status: answer.0, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: answer.1)))
        }
        router.get("fhir/Patient/:id") { _, _ -> Response in
            guard let patient = server.state.withLock({ $0.patient }) else { return Response(status: .notFound) }
            return Response(status: .ok, headers: [.contentType: "application/fhir+json"], body: .init(byteBuffer: ByteBuffer(string: patient)))
        }
        router.post("fhir/Patient/:id/:operation") { _, _ -> Response in
            let parameters = server.state.withLock { $0.cardsParameters } ?? #"{"resourceType":"Parameters"}"#
            return Response(status: .ok, headers: [.contentType: "application/fhir+json"], body: .init(byteBuffer: ByteBuffer(string: parameters)))
        }
        router.get("fhir/:type") { request, context -> Response in
            let type = context.parameters.get("type") ?? ""
            if type == "metadata" {
                let offers = server.state.withLock { $0.cardsParameters != nil }
                let operation = offers ? #","operation":[{"name":"health-cards-issue"}]"# : ""
                let statement = #"{"resourceType":"CapabilityStatement","rest":[{"mode":"server","resource":[{"type":"Patient"\#(operation)}]}]}"#
                return Response(status: .ok, headers: [.contentType: "application/fhir+json"], body: .init(byteBuffer: ByteBuffer(string: statement)))
            }
            let query = request.uri.query ?? ""
            let bearer = request.headers[.authorization].map { String($0.dropFirst("Bearer ".count)) }
            let page = request.uri.queryParameters.get("page").flatMap { Int($0) } ?? 0
            let base = server.base
            let outcome: (HTTPResponse.Status, String) = server.state.withLock { state in
                state.requests.append(Request(path: "/fhir/\(type)", query: query, bearer: bearer))
                if state.revoked || bearer != state.token { return (.unauthorized, #"{"resourceType":"OperationOutcome"}"#) }
                if page > 0, state.cursorsGone {
                    state.cursorsGone = false
                    return (.gone, #"{"resourceType":"OperationOutcome"}"#)
                }
                if type == "Observation", state.failPage == page {
                    state.failPage = nil
                    return (.internalServerError, #"{"resourceType":"OperationOutcome"}"#)
                }
                guard type == "Observation" else {
                    return (.ok, #"{"resourceType":"Bundle","type":"searchset","total":0,"meta":{"lastUpdated":"2026-03-01T00:00:00Z"}}"#)
                }
                var entries = [1 + 2 * page, 2 + 2 * page].map { #"{"search":{"mode":"match"},"resource":\#(observation($0))}"# }
                if page == 1, let patient = state.pagePatient { entries.append(#"{"search":{"mode":"include"},"resource":\#(patient)}"#) }
                let next = page < 2 ? #","link":[{"relation":"next","url":"\#(base)/Observation?page=\#(page + 1)"}]"# : ""
                return (.ok,
                        #"{"resourceType":"Bundle","type":"searchset","total":6,"meta":{"lastUpdated":"2026-03-01T00:00:00Z"}\#(next),"#
                            + #""entry":[\#(entries.joined(separator: ","))]}"#)
            }
            return Response(status: outcome.0, headers: [.contentType: "application/fhir+json"], body: .init(byteBuffer: ByteBuffer(string: outcome.1)))
        }
        guard let application = await LoopbackApplication.start(router, label: "scripted-fhir", logLevel: .error) else {
            throw RecordsSyncError.transport("the scripted server did not start")
        }
        server.baseURL.withLock { $0 = application.url + "/fhir" }
        server.application.withLock { $0 = application }
        return server
    }
}

extension RecordsSynchronizerTests {
    static let cardIssuer = "https://issuer.example"

    /// A card of one Immunization given on `date`, signed by `key` as ``cardIssuer``.
    static func immunizationCard(_ date: String, key: SHCIssuerKey) throws -> String {
        let bundle = #"""
            {"resourceType":"Bundle","type":"collection","entry":[{"fullUrl":"resource:0","resource":{"resourceType":"Patient",\#
            "name":[{"family":"A"}],"birthDate":"1970-01-01"}},{"fullUrl":"resource:1","resource":{"resourceType":"Immunization",\#
            "status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]},\#
            "patient":{"reference":"resource:0"},"occurrenceDateTime":"\#(date)"}}]}
            """#
        return try SHCIssuer(key: key, issuer: cardIssuer).issue(bundle: Array(bundle.utf8), nbf: Date())
    }

    static func parameters(_ cards: [String]) -> String {
        let entries = cards.map { #"{"name":"verifiableCredential","valueString":"\#($0)"}"# }
        return #"{"resourceType":"Parameters""# + (entries.isEmpty ? "" : #","parameter":[\#(entries.joined(separator: ","))]"#) + "}"
    }

    /// The verifiable records added and deleted since `anchor` (an anchored query), and the new anchor.
    static func cardChanges(_ store: HKHealthStore, since anchor: HKQueryAnchor?) async throws -> (added: [UUID], deleted: [UUID], anchor: HKQueryAnchor) {
        let type = HKVerifiableClinicalRecordType.verifiableClinicalRecordType()
        let result = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: type)], anchor: anchor).result(for: store)
        return (result.addedSamples.map(\.uuid), result.deletedObjects.map(\.uuid), result.newAnchor)
    }

    static func cards(in store: HKHealthStore) async throws -> [HKVerifiableClinicalRecord] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[HKVerifiableClinicalRecord], any Error>) in
            store.execute(HKVerifiableClinicalRecordQuery(recordTypes: [], predicate: nil) { _, records, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: records ?? []) }
            })
        }
    }

    /// The cards of a sync are the connection's card set: a card the server re-issued for
    /// changed data replaces the old one (deleted, as an anchored query sees), an unchanged one
    /// stays as it is, a card stored from a file is never touched, an answer with a card that
    /// does not verify deletes nothing, an empty answer deletes every card the connection
    /// brought, and a sync that stops before its cards leaves them as they were.
    @Test func cardsTheServerNoLongerIssuesAreReplaced() async throws {
        let server = try await ScriptedFHIRServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("records-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await Self.store(in: folder, connectedTo: server.base, tokenExpiry: nil)
        let key = SHCIssuerKey.generate()
        let verifier = SHCVerifier(resolver: StaticKeyResolver([Self.cardIssuer: SHCJWKSet(keys: [key.publicJWK])]), now: Date())
        let http = SMARTHTTP(timeout: .seconds(30))
        let synchronizer = RecordsSynchronizer(store: store, http: http, verifier: verifier, options: .init(pageSize: 2, resourceTypes: ["Observation"]))
        func uuids() async throws -> Set<UUID> { Set(try await Self.cards(in: store).map(\.uuid)) }
        func jws(_ uuid: UUID) async throws -> String? {
            try await Self.cards(in: store).first { $0.uuid == uuid }.map { String(decoding: $0.dataRepresentation, as: UTF8.self) }
        }

        // A card from a file, not from the connection.
        let fileCard = try Self.immunizationCard("2019-05-05", key: key)
        var fileReport = HealthRecordImportReport()
        try await HealthRecordImporter(store: store, verifier: verifier, options: .init(sourceName: "file"))
            .importInput(Array(fileCard.utf8), named: "card.smart-health-card", into: &fileReport)
        let fromFile = try #require(fileReport.stored.first?.uuid)

        let first = try Self.immunizationCard("2021-01-01", key: key), second = try Self.immunizationCard("2021-02-01", key: key)
        server.issueCards(Self.parameters([first, second]))
        _ = try await synchronizer.sync(named: "clinic")
        let afterFirst = try await uuids()
        #expect(afterFirst.count == 3 && afterFirst.contains(fromFile))
        let anchor = try await Self.cardChanges(store, since: nil).anchor

        // The server signs fresh copies each time: unchanged content stores nothing new.
        server.issueCards(Self.parameters([try Self.immunizationCard("2021-01-01", key: key), try Self.immunizationCard("2021-02-01", key: key)]))
        _ = try await synchronizer.sync(named: "clinic")
        #expect(try await uuids() == afterFirst)

        // The second Immunization corrected: its card is replaced, the first's kept.
        let corrected = try Self.immunizationCard("2021-02-03", key: key)
        server.issueCards(Self.parameters([try Self.immunizationCard("2021-01-01", key: key), corrected]))
        #expect(try await synchronizer.sync(named: "clinic").cardsReplaced == 1)
        let afterChange = try await uuids()
        #expect(afterChange.count == 3 && afterChange.contains(fromFile))
        let replaced = afterFirst.subtracting(afterChange)
        let added = afterChange.subtracting(afterFirst)
        #expect(replaced.count == 1 && added.count == 1)
        let new = try #require(added.first)
        #expect(try await jws(new) == corrected)
        let gone = try #require(replaced.first)
        let changes = try await Self.cardChanges(store, since: anchor)
        #expect(changes.deleted == [gone] && changes.added == [new])
        let state = try #require(try await RecordsSynchronizer.connections(in: store).first)
        #expect(Set(state.cardRecords.values) == afterChange.subtracting([fromFile]) && state.cardDigests.count == 2)

        // One card of the answer does not verify: nothing is forgotten.
        let stranger = try SHCIssuer(key: .generate(),
                                     issuer: Self.cardIssuer).issue(bundle: Array(#"{"resourceType":"Bundle","type":"collection","entry":[]}"#.utf8),
                                                                    nbf: Date())
        server.issueCards(Self.parameters([try Self.immunizationCard("2021-01-01", key: key), stranger]))
        let refused = try await synchronizer.sync(named: "clinic")
        #expect(refused.records.refusals.count == 1 && refused.cardsReplaced == 0)
        #expect(try await uuids() == afterChange)

        // A sync that stops before its cards changes none of them.
        server.issueCards(Self.parameters([]))
        server.failObservationPage(1)
        await #expect(throws: RecordsSyncError.fhir("searching Observation answered 500")) { _ = try await synchronizer.sync(named: "clinic") }
        #expect(try await uuids() == afterChange)

        // The server issues no card any more: every card of the connection goes, the file's stays.
        #expect(try await synchronizer.sync(named: "clinic").cardsReplaced == 2)
        #expect(try await uuids() == [fromFile])
        let emptied = try #require(try await RecordsSynchronizer.connections(in: store).first)
        #expect(emptied.cardRecords.isEmpty && emptied.cardDigests.isEmpty)
        try await http.shutdown()
        await server.stop()
    }
}
