import AsyncHTTPClient
import FHIRCore
import FhirBlocksClient
import Foundation
import HTTPTestSupport
import HealthRecords
import OpenHealthKit
import RecordsSync
import Testing
import TestSupport

/// `health records connect|sync|connections` against `health serve` over TLS on loopback (a
/// certificate authority made for the run: `connect --ca-cert`, the wallet through
/// `SSL_CERT_FILE`), the person played by the test: it reads the printed authorize URL, asks the
/// page for its user code, approves (or declines) with `health wallet approve|decline`, and loads
/// the URL again to be redirected to the listener of `connect`.
@Suite(.serialized) struct RecordsSyncCommandTests {
    /// A served wallet with the Synthea patient's resources, and a store to sync into.
    struct World {
        let runner: CommandRunner
        let server: ServeCommandTests.Server
        let identity: String
        let certificates: LoopbackCertificates
        let database: String?
        let http: SMARTHTTP
        /// `--card-source` and the wallet's csiGuid: the resources of these tests are stored by
        /// the wallet, standing in for the clinic's system, and the server issues cards only for
        /// what a listed card source wrote.
        var cardSource: [String] = []
        var url: String { server.url }
        var fhirBase: String { "\(server.url)/fhir" }

        static func start(backend: String = "sqlite") async throws -> World {
            let runner = CommandRunner()
            let certificates = try LoopbackCertificates.make(in: runner.folder)
            let database = try await ServeCommandTests.database(for: backend)
            let server = try await ServeCommandTests.Server.start(runner, database: database,
                                                                  arguments: ["--tls-cert", certificates.certificateFile, "--tls-key", certificates.keyFile])
            let identity = runner.folder.appendingPathComponent("wallet.json").path
            var world = World(runner: runner, server: server, identity: identity, certificates: certificates, database: database,
                              http: SMARTHTTP(timeout: .seconds(30), additionalTrustRoots: [certificates.authority]))
            #expect(server.url.hasPrefix("https://127.0.0.1:"))
            let registered = try await world.wallet(["register", "--first-name", "Alice", "--birth-date", "1970-01-01"])
            #expect(registered.status == 0, "\(registered.error)")
            // Started again listing the registered wallet as a card source.
            world.cardSource = ["--card-source", try CsiIdentity.load(from: identity).csiGuid.rawValue]
            server.process.terminate()
            server.process.waitUntilExit()
            return World(runner: runner, server: try await world.twin(), identity: identity, certificates: certificates, database: database,
                         http: world.http, cardSource: world.cardSource)
        }

        func stop() async {
            try? await http.shutdown()
            server.process.terminate()
            server.process.waitUntilExit()
            runner.remove()
        }

        func run(_ arguments: [String]) async throws -> CommandRunner.Result {
            try await runner.run(arguments, environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        }

        /// `health wallet SUBCOMMAND … --server URL --identity FILE` (this world's server unless
        /// another is named), trusting the test authority through `SSL_CERT_FILE`.
        func wallet(_ arguments: [String], server: String? = nil) async throws -> CommandRunner.Result {
            try await runner.run(["wallet"] + arguments + ["--server", server ?? url, "--identity", identity],
                                 environment: ["SSL_CERT_FILE": certificates.authorityFile])
        }

        /// Puts 20 resources, connects as `clinic` and syncs: the number of records stored and
        /// the connection's client id.
        func connectAndSync() async throws -> (records: Int, clientID: String) {
            try await put(Array(RecordsSyncCommandTests.synthea.prefix(20)))
            #expect(try await connect(["--name", "clinic"]).status == 0)
            #expect(try await run(["records", "sync"]).status == 0)
            let records = try await storedRecords().count
            #expect(records > 0)
            let listing = try await run(["records", "connections", "--json"])
            return (records, try #require((try? JSONParser.parse(listing.output))?.arrayValue?.first?["clientId"]?.stringValue))
        }

        /// Puts 20 more resources and syncs, which must be refused as revoked, storing nothing.
        func expectSyncRefusedAsRevoked(storedBefore: Int) async throws {
            try await put(Array(RecordsSyncCommandTests.synthea.dropFirst(20).prefix(20)))
            let refused = try await run(["records", "sync", "--name", "clinic"])
            #expect(refused.status == 1)
            #expect(refused.error.contains("the connection must be renewed"), "\(refused.error)")
            #expect(try await storedRecords().count == storedBefore)
        }

        /// A second `health serve` process on the same database, data folder and certificate.
        func twin() async throws -> ServeCommandTests.Server {
            try await ServeCommandTests.Server.start(runner, database: database,
                                                     arguments: ["--tls-cert", certificates.certificateFile, "--tls-key", certificates.keyFile] + cardSource)
        }

        /// Stores resources in the wallet's compartment.
        func put(_ resources: [JSONValue]) async throws {
            let httpClient = HTTPExchange.makeClient(trusting: [certificates.authority], followingRedirects: false)
            do {
                let client = FhirBlocksClient(baseURL: try ServerBaseURL(server.url), httpClient: httpClient)
                let wallet = WalletClient(client: client, identity: try CsiIdentity.load(from: identity))
                for resource in resources { _ = try await wallet.store(resource) }
            } catch {
                try? await httpClient.shutdown()
                throw error
            }
            try await httpClient.shutdown()
        }

        /// Runs `health records connect`, deciding with the wallet when the URL is printed.
        func connect(_ extra: [String] = [], approve: Bool = true) async throws -> CommandRunner.Result {
            let (process, output, error) = try runner.launch(["records", "connect", fhirBase, "--ca-cert", certificates.authorityFile] + extra,
                                                             environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
            let lines = LineReader(output)
            var authorizeURL: String?
            while let line = await lines.next() {
                if line.hasPrefix("http") { authorizeURL = line; break }
            }
            let url = try #require(authorizeURL,
                                   "connect printed no authorize URL: \(String(decoding: error.fileHandleForReading.availableData, as: UTF8.self))")
            let page = try await http.get(url, accept: "application/json")
            let userCode = try #require((try? JSONParser.parse(page.body))?["user_code"]?.stringValue, "no user code: \(page.status)")
            let decided = try await wallet([approve ? "approve" : "decline", userCode])
            #expect(decided.status == 0, "\(decided.error)")
            let back = try await http.get(url)
            #expect(back.status == 302)
            let location = try #require(back.headers.first { $0.name.lowercased() == "location" }?.value)
            let landed = try await http.get(location, accept: "text/html")
            #expect(landed.status == 200)
            return await lines.finish(process: process, error: error)
        }

        /// The clinical records in the store, by type, and all of them.
        func storedRecords() async throws -> [HKClinicalRecord] {
            let store = HKHealthStore(configuration: .init(location: .file(URL(fileURLWithPath: runner.store)),
                                                           key: .keyFile(runner.folder.appendingPathComponent("health.key")), role: .owner))
            var records: [HKClinicalRecord] = []
            for identifier in HKClinicalTypeIdentifier.allKnown {
                let found = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(identifier))], sortDescriptors: [])
                    .result(for: store)
                records += found
            }
            return records
        }

        func capabilityStatement() async throws -> [UInt8] {
            try await http.get("\(fhirBase)/metadata").body
        }
    }

    /// The Synthea patient `health demo` uses: its Patient and its clinical resources.
    static let synthea: [JSONValue] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/health/Resources/synthea-patient.json")
        guard let data = try? Data(contentsOf: url), let bundle = try? JSONParser.parse(data) else { return [] }
        return (bundle["entry"]?.arrayValue ?? []).compactMap { $0["resource"] }.filter { resource in
            guard let object = resource.objectValue else { return false }
            return object["resourceType"]?.stringValue == "Patient" || ClinicalRecordClassifier.clinicalType(of: object) != nil
        }
    }()

    /// What the store should hold of the Synthea resources, by clinical type.
    static func expectedTypes(_ resources: [JSONValue]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for resource in resources {
            guard let object = resource.objectValue, let type = ClinicalRecordClassifier.clinicalType(of: object) else { continue }
            counts[type.rawValue, default: 0] += 1
        }
        return counts
    }

    static func byType(_ records: [HKClinicalRecord]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for record in records { counts[record.clinicalType.identifier, default: 0] += 1 }
        return counts
    }

    /// Whether the server's CapabilityStatement says it searches by `_lastUpdated`.
    static func searchesLastUpdated(_ statement: [UInt8]) -> Bool {
        guard let value = try? JSONParser.parse(statement) else { return false }
        for rest in value["rest"]?.arrayValue ?? [] {
            let observations = (rest["resource"]?.arrayValue ?? []).filter { $0["type"]?.stringValue == "Observation" }
            let lists = [rest["searchParam"]] + observations.map { $0["searchParam"] }
            for list in lists where list?.arrayValue?.contains(where: { $0["name"]?.stringValue == "_lastUpdated" }) ?? false { return true }
        }
        return false
    }

    @Test(arguments: ServeCommandTests.backends)
    func connectApproveSyncAndSyncAgain(backend: String) async throws {
        let world = try await World.start(backend: backend)
        try await withTeardown({ await world.stop() }) {
            let resources = Self.synthea
            try #require(resources.count > 40, "the Synthea patient could not be read")
            try await world.put(resources)

            let connected = try await world.connect(["--name", "clinic"])
            #expect(connected.status == 0, "\(connected.error)")
            #expect(connected.output.contains("connected clinic: patient "))
            let listed = try await world.run(["records", "connections"])
            #expect(listed.status == 0 && listed.output.contains("clinic  \(world.fhirBase)  patient ") && listed.output.contains("never synced"))

            // Served over TLS, the server issues cards (their `iss` is its https URL); the sync
            // verifies them with the keys it publishes, read over the connection's trust.
            #expect(SMARTEndpoints.offersHealthCardsIssue(capabilityStatement: try await world.capabilityStatement()))
            let first = try await world.run(["records", "sync"])
            #expect(first.status == 0, "\(first.output)\(first.error)")
            #expect(first.output.contains("synced clinic: fetched "))
            let records = try await world.storedRecords()
            let expected = Self.expectedTypes(resources)
            #expect(Self.byType(records) == expected)
            #expect(records.count == expected.values.reduce(0, +))
            // Every record points back at its resource on the server, and holds its bytes.
            for record in records {
                let resource = try #require(record.fhirResource)
                #expect(resource.sourceURL?.absoluteString == "\(world.fhirBase)/\(resource.resourceType.rawValue)/\(resource.identifier)")
                #expect(record.sourceRevision.source.name == "clinic")
            }
            #expect(try await world.run(["records", "connections"]).output.contains("last sync "))
            let store = HKHealthStore(configuration: .init(location: .file(URL(fileURLWithPath: world.runner.store)),
                                                           key: .keyFile(world.runner.folder.appendingPathComponent("health.key")), role: .owner))
            let firstCards = try await Self.verifiableRecords(store)
            let anchor = try await Self.cardChanges(store, since: nil).anchor

            // A change on the server: one Observation updated, one Immunization corrected, one Condition added.
            let observation = try #require(resources.first { $0["resourceType"]?.stringValue == "Observation" }?.objectValue)
            var changed = observation
            changed.members = changed.members.filter { $0.key != "status" } + [JSONMember(key: "status", value: .string("amended"))]
            let condition = JSONValue.object(JSONObject(members: [
                JSONMember(key: "resourceType", value: .string("Condition")), JSONMember(key: "id", value: .string("new-condition")),
                JSONMember(key: "code", value: .object(JSONObject(members: [JSONMember(key: "text", value: .string("Sprained ankle"))]))),
                JSONMember(key: "subject", value: .object(JSONObject(members: [JSONMember(key: "reference", value: .string("Patient/alice"))]))),
            ]))
            let immunization = try #require(resources.first { $0["resourceType"]?.stringValue == "Immunization" }?.objectValue)
            var corrected = immunization
            corrected.members = corrected.members.filter { $0.key != "lotNumber" } + [JSONMember(key: "lotNumber", value: .string("CORRECTED-15"))]
            try await world.put([.object(changed), .object(corrected), condition])
            let second = try await world.run(["records", "sync", "--name", "clinic"])
            #expect(second.status == 0, "\(second.output)\(second.error)")
            let after = try await world.storedRecords()
            // No duplicates: the update replaced its record, the new one was added.
            #expect(after.count == records.count + 1)
            let amended = try #require(after.first { $0.fhirResource?.identifier == immunization["id"]?.stringValue })
            #expect((try? JSONParser.parse(Array(amended.fhirResource?.data ?? Data())))?["lotNumber"]?.stringValue == "CORRECTED-15")
            let updated = try #require(after.first { $0.fhirResource?.identifier == observation["id"]?.stringValue })
            #expect((try? JSONParser.parse(Array(updated.fhirResource?.data ?? Data())))?["status"]?.stringValue == "amended")
            if Self.searchesLastUpdated(try await world.capabilityStatement()) {
                // Only what changed is fetched.
                #expect(second.output.contains("synced clinic: fetched 3 resources"), "\(second.output)")
            } else {
                // Turns on with the server's `_lastUpdated` search (branch `search`); until then the
                // server ignores the parameter and sends everything again.
                print("RecordsSyncCommandTests: the server does not advertise _lastUpdated search; \"a second sync fetches only what changed\" not checked")
            }

            // The health cards: fetched by every sync and verified against the server's own keys
            // (read over the connection's TLS trust); a card whose content did not change is not
            // stored again, and the card the server re-issued for the corrected Immunization
            // replaces the old one: one immunization card, the new one; the old one deleted.
            let cards = try await Self.verifiableRecords(store)
            #expect(!firstCards.isEmpty, "no card was stored: \(first.output)")
            #expect(cards.count == firstCards.count)
            let immunizationCard = "https://smarthealth.cards#immunization"
            let oldImmunizationCards = firstCards.filter { $0.recordTypes.contains(immunizationCard) }
            let newImmunizationCards = cards.filter { $0.recordTypes.contains(immunizationCard) }
            #expect(oldImmunizationCards.count == 1 && newImmunizationCards.count == 1)
            let oldCard = try #require(oldImmunizationCards.first), newCard = try #require(newImmunizationCards.first)
            #expect(oldCard.uuid != newCard.uuid && oldCard.dataRepresentation != newCard.dataRepresentation)
            let cardChanges = try await Self.cardChanges(store, since: anchor)
            #expect(second.output.contains("health cards: deleted \(cardChanges.deleted.count) that the server no longer issues"), "\(second.output)")
            #expect(cardChanges.deleted.contains(oldCard.uuid) && cardChanges.added.contains(newCard.uuid))
            // Exactly the cards that changed were replaced: the others kept their records.
            #expect(Set(cardChanges.deleted).isDisjoint(with: cards.map(\.uuid)))
            #expect(Set(firstCards.map(\.uuid)).subtracting(cardChanges.deleted) == Set(cards.map(\.uuid)).subtracting(cardChanges.added))
            #expect(cards.allSatisfy { $0.issuerIdentifier == world.url })
            #expect(!first.output.contains("refused") && !second.output.contains("refused"), "\(first.output)\(second.output)")
            let third = try await world.run(["records", "sync", "--name", "clinic"])
            #expect(third.status == 0 && !third.output.contains("refused"), "\(third.output)\(third.error)")
            #expect(try await Self.verifiableRecords(store).count == cards.count)

            // Forget the connection: the records and cards stay, as it says.
            let removed = try await world.run(["records", "connections", "--remove", "clinic"])
            #expect(removed.output.contains("removed clinic") && removed.output.contains("stay in the store"), "\(removed.output)")
            #expect(try await world.run(["records", "connections", "--remove", "clinic"]).status == 1)
            #expect(try await world.run(["records", "connections"]).output.contains("No connections."))
            #expect(try await world.run(["records", "sync"]).status == 1)
            #expect(try await world.storedRecords().count == after.count)
            #expect(try await Self.verifiableRecords(store).count == cards.count)
        }
    }

    /// The verifiable records added and deleted since `anchor` (an anchored query), and the new anchor.
    static func cardChanges(_ store: HKHealthStore, since anchor: HKQueryAnchor?) async throws -> (added: [UUID], deleted: [UUID], anchor: HKQueryAnchor) {
        let type = HKVerifiableClinicalRecordType.verifiableClinicalRecordType()
        let result = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: type)], anchor: anchor).result(for: store)
        return (result.addedSamples.map(\.uuid), result.deletedObjects.map(\.uuid), result.newAnchor)
    }

    static func verifiableRecords(_ store: HKHealthStore) async throws -> [HKVerifiableClinicalRecord] {
        try await withCheckedThrowingContinuation { continuation in
            store.execute(HKVerifiableClinicalRecordQuery(recordTypes: [], predicate: nil) { _, records, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: records ?? []) }
            })
        }
    }

    @Test func declinedApprovalIsReportedAsAccessDenied() async throws {
        let world = try await World.start()
        try await withTeardown({ await world.stop() }) {
            let declined = try await world.connect(approve: false)
            #expect(declined.status == 1)
            #expect(declined.error.contains("access_denied"), "\(declined.error)")
            #expect(try await world.run(["records", "connections"]).output.contains("No connections."))
            // Without --ca-cert (or SSL_CERT_FILE) the test authority is not trusted: the server
            // cannot be reached, nothing is printed to approve and nothing is saved.
            let untrusted = try await world.run(["records", "connect", world.fhirBase, "--timeout", "5"])
            #expect(untrusted.status == 2 && untrusted.error.contains("network error"), "\(untrusted.error)")
            #expect(!untrusted.output.contains("http"))
            #expect(try await world.run(["records", "connections"]).output.contains("No connections."))
        }
    }

    @Test func revokedConnectionMustBeRenewedAndStoresNothing() async throws {
        let world = try await World.start()
        try await withTeardown({ await world.stop() }) {
            let (before, clientID) = try await world.connectAndSync()
            #expect(try await world.wallet(["revoke", "--from-grantee", clientID]).status == 0)
            try await world.expectSyncRefusedAsRevoked(storedBefore: before)
            // Connecting again under the same name renews it.
            #expect(try await world.connect(["--name", "clinic"]).status == 0)
            #expect(try await world.run(["records", "sync"]).status == 0)
            #expect(try await world.storedRecords().count > before)
        }
    }

    /// Two `health serve` processes on one database, over HTTPS: the app connected and synced
    /// through the first; the wallet revokes it through the second, and the first refuses the
    /// app's next sync at once (its tokens and their refresh).
    @Test(arguments: ServeCommandTests.backends)
    func revocationThroughOneServerIsInForceOnTheOther(backend: String) async throws {
        let world = try await World.start(backend: backend)
        let twin = try await world.twin()
        try await withTeardown({
            twin.process.terminate()
            twin.process.waitUntilExit()
            await world.stop()
        }) {
            #expect(twin.url != world.url)
            let (before, clientID) = try await world.connectAndSync()
            // The second server sees the grant made through the first.
            let permissions = try await world.wallet(["permissions"], server: twin.url)
            #expect(permissions.status == 0 && permissions.output.contains(clientID), "\(permissions.output)\(permissions.error)")
            #expect(try await world.wallet(["revoke", "--from-grantee", clientID], server: twin.url).status == 0)
            try await world.expectSyncRefusedAsRevoked(storedBefore: before)
        }
    }

    /// The token endpoint's refusals as the client reports them: a wrong PKCE verifier, a
    /// redirect URI that is not the one the code was bound to, and a code used twice (which
    /// also revokes the tokens issued from it).
    @Test func tokenEndpointRefusalsReachTheClient() async throws {
        let world = try await World.start()
        try await withTeardown({ await world.stop() }) {
            try await world.put(Array(Self.synthea.prefix(5)))
            let store = HKHealthStore(configuration: .init(location: .file(URL(fileURLWithPath: world.runner.store)),
                                                           key: .keyFile(world.runner.folder.appendingPathComponent("health.key")), role: .owner))
            let connector = RecordsConnector(store: store, http: world.http)
            let endpoints = try await connector.discover(fhirBase: world.fhirBase)
            let redirect = "http://127.0.0.1:9/callback"
            let clientID = try await connector.register(endpoints: endpoints, redirectURI: redirect)
            var generator = SystemRandomNumberGenerator()
            func approvedCode() async throws -> (SMARTAuthorizationRequest, String) {
                let request = SMARTAuthorizationRequest(clientID: clientID, redirectURI: redirect, scope: RecordsConnector.defaultScope,
                                                        audience: world.fhirBase, using: &generator)
                let url = request.url(endpoint: endpoints.authorization)
                let code = try #require((try? JSONParser.parse(try await world.http.get(url, accept: "application/json").body))?["user_code"]?.stringValue)
                #expect(try await world.wallet(["approve", code]).status == 0)
                let back = try await world.http.get(url)
                let location = try #require(back.headers.first { $0.name.lowercased() == "location" }?.value)
                var fields: [String: String] = [:]
                for item in URLComponents(string: location)?.queryItems ?? [] { fields[item.name] = item.value }
                return (request, try RecordsConnector.code(from: fields, state: request.state))
            }
            func refusal(_ body: () async throws -> Void) async -> String? {
                do {
                    try await body()
                    return nil
                } catch let error as RecordsSyncError {
                    if case .tokenRefused(let code, _) = error { return code }
                    return "\(error)"
                } catch {
                    return "\(error)"
                }
            }

            var (request, code) = try await approvedCode()
            var wrong = request
            wrong.codeVerifier = String(repeating: "x", count: 43)
            #expect(await refusal { _ = try await connector.exchange(code: code, request: wrong, endpoints: endpoints) } == "invalid_grant")

            (request, code) = try await approvedCode()
            var otherRedirect = request
            otherRedirect.redirectURI = "http://127.0.0.1:10/callback"
            #expect(await refusal { _ = try await connector.exchange(code: code, request: otherRedirect, endpoints: endpoints) } == "invalid_grant")

            (request, code) = try await approvedCode()
            let grant = try await connector.exchange(code: code, request: request, endpoints: endpoints)
            let patient = try #require(grant.patient)
            #expect(try await world.http.get("\(world.fhirBase)/Patient/\(patient)", bearer: grant.accessToken).status != 401)
            #expect(await refusal { _ = try await connector.exchange(code: code, request: request, endpoints: endpoints) } == "invalid_grant")
            // The reuse revoked the approval: the token issued from the code no longer works.
            #expect(try await world.http.get("\(world.fhirBase)/Observation?patient=\(patient)", bearer: grant.accessToken).status == 401)
        }
    }
}

/// Reads a child's standard output line by line, then the rest and its standard error.
final class LineReader: @unchecked Sendable {
    private let pipe: Pipe
    private var consumed: [String] = []

    init(_ pipe: Pipe) {
        self.pipe = pipe
    }

    /// The next line, or nil at the end.
    func next() async -> String? {
        let handle = pipe.fileHandleForReading
        let line: String? = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes: [UInt8] = []
                while true {
                    let chunk = handle.readData(ofLength: 1)
                    guard let byte = chunk.first else {
                        continuation.resume(returning: bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self))
                        return
                    }
                    if byte == UInt8(ascii: "\n") { break }
                    bytes.append(byte)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
        if let line { consumed.append(line) }
        return line
    }

    /// Waits for the process; its status, everything it printed, and its error output.
    func finish(process: ChildProcess, error: Pipe) async -> CommandRunner.Result {
        let output = pipe
        let (rest, errorText): (Data, Data) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let rest = output.fileHandleForReading.readDataToEndOfFile()
                let errorText = error.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (rest, errorText))
            }
        }
        let text = consumed.map { $0 + "\n" }.joined() + String(decoding: rest, as: UTF8.self)
        return CommandRunner.Result(status: process.terminationStatus, output: text, error: String(decoding: errorText, as: UTF8.self))
    }
}
