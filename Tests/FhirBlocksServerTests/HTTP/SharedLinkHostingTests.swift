import ExactJSON
import FhirBlocks
import FhirBlocksClient
@testable import FhirBlocksServer
import FhirBlocksStore
import Foundation
import SmartHealthLinks
import Synchronization
import Testing
import TestSupport

/// SMART Health Links hosted by the server (issue 37), through the real server on loopback: the
/// wallet creates, lists, updates and revokes links with `FhirBlocksClient`; a receiver
/// (`SHLReceiver`, the module `health share open` uses) opens them over HTTP and decrypts. Every
/// refusal path of the links specification, on each backend; the server's clock is scripted.
@Suite("Shared link hosting")
struct SharedLinkHostingTests {
    /// The receiver's HTTP: AsyncHTTPClient on loopback.
    struct Transport: SHLTransport {
        func postJSON(_ url: String, json: [UInt8]) async throws -> SHLHTTPResponse {
            let answer = try await HTTPExchange.send(.POST, url, headers: [("Content-Type", "application/json")], body: json)
            return SHLHTTPResponse(status: answer.status, headers: answer.headers.map { (name: $0.0, value: $0.1) }, body: answer.body)
        }
        func get(_ url: String) async throws -> SHLHTTPResponse {
            let answer = try await HTTPExchange.send(.GET, url, headers: [("Accept", "application/jose")])
            return SHLHTTPResponse(status: answer.status, headers: answer.headers.map { (name: $0.0, value: $0.1) }, body: answer.body)
        }
    }

    /// A world, its server on loopback, a client and a registered wallet.
    struct Setup {
        let world: TestWorld
        let server: RunningServer
        let client: FhirBlocksClient
        let wallet: WalletClient

        var receiver: SHLReceiver { SHLReceiver(transport: Transport(), embeddedLengthMax: 1 << 20) }
        var now: Date { Date(timeIntervalSince1970: TimeInterval(world.now.secondsSince1970)) }

        /// Moves the server's clock and brings the client's offset along.
        func advance(seconds: Int64) async throws {
            world.clock.advance(seconds: seconds)
            try await client.synchronizeClock()
        }

        /// A new wallet on the same server.
        func anotherWallet() async throws -> WalletClient {
            try await WalletClient.register(client: client, claims: PatientClaims(dateOfBirth: "1980-02-02", firstName: "Bob", lastName: "Other", gender: "M"))
        }
    }

    static func with(_ backend: TestBackend, _ body: (Setup) async throws -> Void) async throws {
        let world = try await TestWorld.make(backend, publicURL: nil)
        let server = try await RunningServer.start(world.service)
        // The client reads the server's scripted clock as its own, so the assertions it dates
        // never drift ahead of a server clock that stands still while the test waits for the
        // machine (a real clock drifted past the 60 s skew on a loaded CI machine); and the
        // answers may take long there (30 parallel scrypt checks, pages of 500 links).
        let client = try FhirBlocksClient(baseURL: server.baseURL, configuration: FhirBlocksClientConfiguration(requestTimeout: .seconds(300)),
                                          clock: ServerClock(localClock: { world.clock.now }))
        try await withTeardown({ try? await client.shutdown(); await server.stop(); await world.close() }) {
            try await client.synchronizeClock()
            let wallet = try await WalletClient.register(client: client, claims: PatientClaims(dateOfBirth: "1970-01-01", firstName: "Alice",
                                                                                               lastName: "Test", gender: "F"))
            try await body(Setup(world: world, server: server, client: client, wallet: wallet))
        }
    }

    static let summary = Array(#"{"resourceType":"Bundle","type":"document","entry":[]}"#.utf8)
    static let card = Array(#"{"verifiableCredential":["eyJ.test.card"]}"#.utf8)

    /// Encrypted files of `contents` under `key`.
    static func files(_ contents: [(String, [UInt8])], key: [UInt8]) throws -> [SharedLinkFile] {
        try contents.map { contentType, content in
            SharedLinkFile(contentType: contentType, jwe: try SHLFile.encrypt(content, contentType: contentType, key: key))
        }
    }

    /// The link a wallet would hand out for `record`.
    static func payload(_ record: SharedLinkRecord, key: [UInt8]) throws -> SHLinkPayload {
        try SHLinkPayload(url: record.manifestURL, key: key, expiration: record.expires.map { Int64($0.timeIntervalSince1970) },
                          flags: SHLinkFlags(letters: record.flags), label: record.label)
    }

    static func manifestRequest(_ url: String, recipient: String = "Dr. Who", passcode: String? = nil, embeddedLengthMax: Int? = nil) async throws
        -> (status: Int, headers: [(String, String)], body: [UInt8]) {
        try await HTTPExchange.send(.POST, url, headers: [("Content-Type", "application/json")],
                                    body: SHLManifestRequest(recipient: recipient, passcode: passcode, embeddedLengthMax: embeddedLengthMax).json)
    }

    static func header(_ headers: [(String, String)], _ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    static func remaining(_ body: [UInt8]) -> Int? { SHLPasscodeRefusal(json: body)?.remainingAttempts }

    // MARK: Tests

    @Test(arguments: TestBackend.available)
    func createdLinkOpensAndDecryptsWithEmbeddedAndLocatedFiles(backend: TestBackend) async throws {
        try await Self.with(backend) { setup in
            let key = SHLink.newKey()
            let large = Array(String(repeating: "x", count: 5000).utf8)
            let record = try await setup.wallet.createLink(SharedLinkRequest(
                files: try Self.files([(SHLContentType.fhirJSON, Self.summary), (SHLContentType.fhirJSON, large)], key: key),
                passcode: "1234", expires: setup.now.addingTimeInterval(86400), label: "For Dr. Who"))
            #expect(record.id.count == 43 && record.manifestURL == setup.server.baseURL + "/shl/" + record.id)
            #expect(record.flags == "P" && record.status == "active" && record.remainingAttempts == 10 && record.fileCount == 2)
            #expect(record.label == "For Dr. Who" && record.accesses.isEmpty)
            // The receiver asks the small file embedded; the large one comes from its location.
            var receiver = setup.receiver
            receiver.embeddedLengthMax = 2000
            let opened = try await receiver.open(try Self.payload(record, key: key), recipient: "Dr. Who", passcode: "1234", now: setup.now)
            #expect(opened.map(\.content) == [Self.summary, large])
            #expect(opened.allSatisfy { $0.contentType == SHLContentType.fhirJSON })
            // The manifest as sent: one embedded, one location, CORS open, not cached.
            let answer = try await Self.manifestRequest(record.manifestURL, passcode: "1234", embeddedLengthMax: 2000)
            #expect(answer.status == 200)
            #expect(Self.header(answer.headers, "Access-Control-Allow-Origin") == "*")
            #expect(Self.header(answer.headers, "Cache-Control") == "no-store")
            let manifest = try SHLManifest(json: answer.body)
            guard case .embedded = manifest.files[0].source, case .location(let url) = manifest.files[1].source else {
                Issue.record("expected one embedded file and one location")
                return
            }
            let file = try await HTTPExchange.send(.GET, url)
            #expect(file.status == 200 && Self.header(file.headers, "Content-Type") == "application/jose")
            #expect(Self.header(file.headers, "Access-Control-Allow-Origin") == "*")
            // embeddedLengthMax 0 (or none): nothing is embedded.
            let none = try SHLManifest(json: try await Self.manifestRequest(record.manifestURL, passcode: "1234").body)
            #expect(none.files.allSatisfy { if case .location = $0.source { true } else { false } })
            // The wallet sees who opened it, in its list and in its audit log.
            let listed = try #require(try await setup.wallet.links().first)
            #expect(listed.id == record.id && listed.accesses.count == 3 && listed.accesses.allSatisfy { $0.recipient == "Dr. Who" && $0.outcome == "opened" })
            let events = try await setup.wallet.auditEvents().objectValue?["entry"]?.arrayValue ?? []
            let linkEvents = events.compactMap { $0.objectValue?["resource"]?.objectValue }.filter {
                $0["subtype"]?.arrayValue?.first?.objectValue?["code"]?.stringValue == "shared-link-access"
            }
            #expect(linkEvents.count == 3)
            #expect(linkEvents.allSatisfy {
                $0["agent"]?.arrayValue?.first?.objectValue?["who"]?.objectValue?["identifier"]?.objectValue?["value"]?.stringValue == "Dr. Who"
            })
        }
    }

    @Test(arguments: TestBackend.available)
    func wrongPasscodesDownToLockoutThenEvenTheRightOneIsNotFound(backend: TestBackend) async throws {
        try await Self.with(backend) { setup in
            let key = SHLink.newKey()
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: try Self.files([(SHLContentType.fhirJSON, Self.summary)], key: key),
                                                                             passcode: "right", attempts: 3))
            let link = try Self.payload(record, key: key)
            await #expect(throws: SHLReceiveError.wrongPasscode(remainingAttempts: 2)) {
                try await setup.receiver.open(link, recipient: "Mallory", passcode: "wrong", now: setup.now)
            }
            // The right passcode does not use up an attempt.
            _ = try await setup.receiver.open(link, recipient: "Dr. Who", passcode: "right", now: setup.now)
            #expect(Self.remaining(try await Self.manifestRequest(record.manifestURL, passcode: "wrong").body) == 1)
            #expect(Self.remaining(try await Self.manifestRequest(record.manifestURL, passcode: "wrong").body) == 0)
            // Locked: every request is the uniform 404, the right passcode too.
            await #expect(throws: SHLReceiveError.notActive) {
                try await setup.receiver.open(link, recipient: "Dr. Who", passcode: "right", now: setup.now)
            }
            #expect(try await Self.manifestRequest(record.manifestURL, passcode: "wrong").status == 404)
            let listed = try #require(try await setup.wallet.links().first)
            #expect(listed.status == "locked" && listed.remainingAttempts == 0)
            #expect(listed.accesses.map(\.outcome) == ["refused-locked", "refused-locked", "wrong-passcode", "wrong-passcode", "opened", "wrong-passcode"])
        }
    }

    @Test(arguments: TestBackend.available)
    func parallelWrongGuessesAreEvaluatedNoMoreThanTheLimit(backend: TestBackend) async throws {
        try await Self.with(backend) { setup in
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: try Self.files([(SHLContentType.fhirJSON, Self.summary)],
                                                                                                   key: SHLink.newKey()), passcode: "right", attempts: 3))
            let statuses = try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
                // More guesses than the limit at once (few: a passcode link checks one request at a time, each an
                // scrypt evaluation that a loaded machine can take seconds over).
                for index in 0..<8 {
                    group.addTask {
                        let answer = try await Self.manifestRequest(record.manifestURL, recipient: "guess \(index)", passcode: "wrong \(index)")
                        return (answer.status, Self.remaining(answer.body))
                    }
                }
                var all: [(Int, Int?)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(statuses.filter { $0.0 == 401 }.count == 3)
            #expect(statuses.filter { $0.0 == 404 }.count == 5)
            #expect(Set(statuses.compactMap(\.1)) == Set(0..<3))
            #expect(try await Self.manifestRequest(record.manifestURL, passcode: "right").status == 404)
        }
    }

    @Test(arguments: TestBackend.available)
    func anExpiredLinkIsNotFound(backend: TestBackend) async throws {
        try await Self.with(backend) { setup in
            let key = SHLink.newKey()
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: try Self.files([(SHLContentType.fhirJSON, Self.summary)], key: key),
                                                                             expires: setup.now.addingTimeInterval(600)))
            #expect(try await Self.manifestRequest(record.manifestURL).status == 200)
            try await setup.advance(seconds: 601)
            let refused = try await Self.manifestRequest(record.manifestURL)
            // The same answer as an unknown link's.
            let unknown = try await Self.manifestRequest(setup.server.baseURL + "/shl/" + SHLink.newManifestID())
            #expect(refused.status == 404 && unknown.status == 404 && refused.body == unknown.body)
            let listed = try #require(try await setup.wallet.links().first)
            #expect(listed.status == "expired" && listed.accesses.first?.outcome == "refused-expired")
            // A link cannot be created already expired.
            await #expect(throws: FhirBlocksClientError.self) {
                try await setup.wallet.createLink(SharedLinkRequest(files: try Self.files([(SHLContentType.fhirJSON, Self.summary)], key: key),
                                                                    expires: setup.now.addingTimeInterval(-1)))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aRevokedLinkAndItsFileLocationsAreNotFound(backend: TestBackend) async throws {
        try await Self.with(backend) { setup in
            let key = SHLink.newKey()
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: try Self.files([(SHLContentType.fhirJSON, Self.summary)], key: key)))
            let manifest = try SHLManifest(json: try await Self.manifestRequest(record.manifestURL).body)
            guard case .location(let url) = try #require(manifest.files.first).source else {
                Issue.record("expected a location")
                return
            }
            try await setup.wallet.revokeLink(id: record.id)
            #expect(try await Self.manifestRequest(record.manifestURL).status == 404)
            #expect(try await HTTPExchange.send(.GET, url).status == 404)
            #expect(try #require(try await setup.wallet.links().first).status == "revoked")
            // Its files can no longer be replaced.
            await #expect(throws: FhirBlocksClientError.self) {
                try await setup.wallet.updateLink(id: record.id, files: try Self.files([(SHLContentType.fhirJSON, Self.summary)], key: key))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func directLinksAnswerGetAndRefuseAPasscode(backend: TestBackend) async throws {
        try await Self.with(backend) { setup in
            let key = SHLink.newKey()
            let files = try Self.files([(SHLContentType.smartHealthCard, Self.card)], key: key)
            // Refused by the client, and by the server when asked anyway.
            await #expect(throws: FhirBlocksClientError.invalidRequest("a direct link (U) cannot have a passcode")) {
                try await setup.wallet.createLink(SharedLinkRequest(files: files, passcode: "1234", direct: true))
            }
            let token = try await setup.wallet.token().accessToken
            let raw = try await HTTPExchange.send(.POST, setup.server.baseURL + "/shl-links",
                                                  headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                  body: Array((#"{"files":[{"contentType":"application/smart-health-card","jwe":"\#(files[0].jwe)"}],"# +
                                                               #""passcode":"1234","direct":true}"#).utf8))
            #expect(raw.status == 400 && String(decoding: raw.body, as: UTF8.self).contains("cannot have a passcode"))
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: files, direct: true))
            #expect(record.flags == "U")
            let opened = try await setup.receiver.open(try Self.payload(record, key: key), recipient: "Front desk", now: setup.now)
            #expect(opened.map(\.content) == [Self.card])
            let missing = try await HTTPExchange.send(.GET, record.manifestURL)
            #expect(missing.status == 400)
            #expect(try #require(try await setup.wallet.links().first).accesses.map(\.recipient) == ["Front desk"])
        }
    }

    @Test(arguments: TestBackend.available)
    func fileLocationsExpireWithinAnHour(backend: TestBackend) async throws {
        try await Self.with(backend) { setup in
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: try Self.files([(SHLContentType.fhirJSON, Self.summary)],
                                                                                                   key: SHLink.newKey())))
            let manifest = try SHLManifest(json: try await Self.manifestRequest(record.manifestURL, embeddedLengthMax: 0).body)
            guard case .location(let url) = try #require(manifest.files.first).source else {
                Issue.record("expected a location")
                return
            }
            #expect(try await HTTPExchange.send(.GET, url).status == 200)
            try await setup.advance(seconds: 3599)
            #expect(try await HTTPExchange.send(.GET, url).status == 200)
            try await setup.advance(seconds: 1)
            #expect(try await HTTPExchange.send(.GET, url).status == 404)
            #expect(try await HTTPExchange.send(.GET, setup.server.baseURL + "/shl/file/" + SHLink.newManifestID()).status == 404)
        }
    }

    @Test(arguments: TestBackend.available)
    func longTermLinksReportStatusAndRefuseFastPolling(backend: TestBackend) async throws {
        try await Self.with(backend) { setup in
            let key = SHLink.newKey()
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: try Self.files([(SHLContentType.fhirJSON, Self.summary)], key: key),
                                                                             longTerm: true))
            #expect(record.flags == "L")
            let first = try await Self.manifestRequest(record.manifestURL, embeddedLengthMax: 100_000)
            #expect(first.status == 200 && Self.header(first.headers, "Retry-After") == "60")
            let manifest = try SHLManifest(json: first.body)
            #expect(manifest.files.first?.status == "can-change")
            #expect((try JSONParser.parse(first.body)).objectValue?["status"] == .string("can-change"))
            let tooFast = try await Self.manifestRequest(record.manifestURL)
            #expect(tooFast.status == 429 && Self.header(tooFast.headers, "Retry-After") == "60")
            // Another recipient is not held back by the first one's polling.
            #expect(try await Self.manifestRequest(record.manifestURL, recipient: "Nurse").status == 200)
            try await setup.advance(seconds: 30)
            #expect(Self.header(try await Self.manifestRequest(record.manifestURL).headers, "Retry-After") == "30")
            try await setup.advance(seconds: 30)
            // The wallet updates the content with the same key; the recipient sees it.
            let today = Array(#"{"resourceType":"Bundle","type":"document","entry":[],"id":"today"}"#.utf8)
            let updated = try await setup.wallet.updateLink(id: record.id, files: try Self.files([(SHLContentType.fhirJSON, today)], key: key))
            #expect(updated.fileCount == 1 && updated.status == "active")
            let opened = try await setup.receiver.open(try Self.payload(record, key: key), recipient: "Dr. Who", now: setup.now)
            #expect(opened.map(\.content) == [today] && opened.first?.status == "can-change")
        }
    }

    @Test(arguments: TestBackend.available)
    func publicEndpointsAnswerTheCORSPreflightAndCapTheirInput(backend: TestBackend) async throws {
        try await Self.with(backend) { setup in
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: try Self.files([(SHLContentType.fhirJSON, Self.summary)],
                                                                                                   key: SHLink.newKey())))
            for url in [record.manifestURL, setup.server.baseURL + "/shl/file/" + SHLink.newManifestID()] {
                let preflight = try await HTTPExchange.send(.OPTIONS, url, headers: [("Origin", "https://viewer.example"),
                                                                                   ("Access-Control-Request-Method", "POST"),
                                                                                   ("Access-Control-Request-Headers", "content-type")])
                #expect(preflight.status == 204)
                #expect(Self.header(preflight.headers, "Access-Control-Allow-Origin") == "*")
                #expect(Self.header(preflight.headers, "Access-Control-Allow-Methods")?.contains("POST") == true)
                #expect(Self.header(preflight.headers, "Access-Control-Allow-Headers")?.lowercased().contains("content-type") == true)
            }
            let long = try await Self.manifestRequest(record.manifestURL, recipient: String(repeating: "r", count: 201))
            #expect(long.status == 400 && String(decoding: long.body, as: UTF8.self).contains("longer than 200"))
            let longPasscode = try await Self.manifestRequest(record.manifestURL, passcode: String(repeating: "p", count: 201))
            #expect(longPasscode.status == 400 && String(decoding: longPasscode.body, as: UTF8.self).contains("\\\"passcode\\\" is longer"))
            let noRecipient = try await HTTPExchange.send(.POST, record.manifestURL, headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(noRecipient.status == 400 && Self.header(noRecipient.headers, "Access-Control-Allow-Origin") == "*")
            let huge = try await HTTPExchange.send(.POST, record.manifestURL, headers: [("Content-Type", "application/json")],
                                                   body: Array(repeating: UInt8(ascii: " "), count: 20_000))
            #expect(huge.status == 413)
        }
    }

    @Test(arguments: TestBackend.available)
    func anotherWalletNeitherListsNorChangesALink(backend: TestBackend) async throws {
        try await Self.with(backend) { setup in
            let key = SHLink.newKey()
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: try Self.files([(SHLContentType.fhirJSON, Self.summary)], key: key)))
            let other = try await setup.anotherWallet()
            #expect(try await other.links().isEmpty)
            await #expect(throws: FhirBlocksClientError.self) { try await other.revokeLink(id: record.id) }
            await #expect(throws: FhirBlocksClientError.self) {
                try await other.updateLink(id: record.id, files: try Self.files([(SHLContentType.fhirJSON, Self.card)], key: key))
            }
            do {
                try await other.revokeLink(id: record.id)
            } catch let error as FhirBlocksClientError {
                #expect(error.httpStatus == 404)
            }
            #expect(try await setup.wallet.links().first?.status == "active")
            #expect(try await Self.manifestRequest(record.manifestURL).status == 200)
            // Without a token, or with an unknown one: 401.
            #expect(try await HTTPExchange.send(.GET, setup.server.baseURL + "/shl-links").status == 401)
            #expect(try await HTTPExchange.send(.GET, setup.server.baseURL + "/shl-links", headers: [("Authorization", "Bearer nope")]).status == 401)
        }
    }

    @Test(arguments: TestBackend.available)
    func twoServersOnOneDatabaseShareTheAttemptCounter(backend: TestBackend) async throws {
        try await Self.with(backend) { setup in
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: try Self.files([(SHLContentType.fhirJSON, Self.summary)],
                                                                                                   key: SHLink.newKey()), passcode: "right", attempts: 6))
            try await setup.world.withTwin { twin in
                let second = try await RunningServer.start(twin.service)
                try await withTeardown({ await second.stop() }) {
                    let other = second.baseURL + "/shl/" + record.id
                    #expect(Self.remaining(try await Self.manifestRequest(record.manifestURL, passcode: "a").body) == 5)
                    #expect(Self.remaining(try await Self.manifestRequest(other, passcode: "b").body) == 4)
                    // Parallel guesses on both: 4 left, so exactly 4 are evaluated.
                    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                        for index in 0..<12 {
                            let url = index.isMultiple(of: 2) ? record.manifestURL : other
                            group.addTask { try await Self.manifestRequest(url, passcode: "guess \(index)").status }
                        }
                        var all: [Int] = []
                        for try await status in group { all.append(status) }
                        return all
                    }
                    #expect(statuses.filter { $0 == 401 }.count == 4 && statuses.filter { $0 == 404 }.count == 8)
                    #expect(try await Self.manifestRequest(other, passcode: "right").status == 404)
                    #expect(try await Self.manifestRequest(record.manifestURL, passcode: "right").status == 404)
                }
            }
        }
    }

    // MARK: The manifest request parser

    /// Random bytes, random JSON and mutated valid requests: the reader answers a value or a
    /// worded problem, never crashes, and a request it accepts has a recipient and passcode
    /// within the caps.
    @Test func manifestRequestReaderSurvivesArbitraryInput() throws {
        var generator = SplitMix64(seed: 37)
        let valid = SHLManifestRequest(recipient: "Dr. Who", passcode: "1234", embeddedLengthMax: 100).json
        let pieces = [#"{"recipient":"#, #""x""#, #","passcode":"#, "null", "1e400", "-1", "[", "]", "{", "}", #""\u0000""#, "1.5", ",", ":",
                      #""embeddedLengthMax""#, "true", String(repeating: "a", count: 300), "\u{FEFF}"]
        for round in 0..<2_000 {
            var input: [UInt8]
            switch round % 3 {
            case 0:
                input = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            case 1:
                input = Array((0..<Int.random(in: 1...8, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined().utf8)
            default:
                input = valid
                for _ in 0..<Int.random(in: 1...3, using: &generator) where !input.isEmpty {
                    input[Int.random(in: 0..<input.count, using: &generator)] = UInt8.random(in: 32...126, using: &generator)
                }
            }
            switch SharedLinkHost.readManifestRequest(input) {
            case .success(let request):
                #expect(!request.recipient.isEmpty && request.recipient.count <= SharedLinkHost.maximumRecipientLength)
                #expect((request.passcode?.count ?? 0) <= SharedLinkHost.maximumPasscodeLength)
                #expect((request.embeddedLengthMax ?? 0) >= 0)
            case .failure(let problem):
                #expect(!problem.reason.isEmpty)
            }
        }
        // Round trip of what a receiver sends.
        #expect(try SharedLinkHost.readManifestRequest(valid).get() == SHLManifestRequest(recipient: "Dr. Who", passcode: "1234", embeddedLengthMax: 100))
        // Unknown members are ignored; the caps are worded.
        #expect((try? SharedLinkHost.readManifestRequest(Array(#"{"recipient":"A","x":[1,2]}"#.utf8)).get())?.recipient == "A")
        guard case .failure(let long) = SharedLinkHost.readManifestRequest(Array(#"{"recipient":"\#(String(repeating: "é", count: 201))"}"#.utf8)) else {
            Issue.record("an over-long recipient was read")
            return
        }
        #expect(long.reason.contains("longer than 200 characters"))
        // A recipient with control characters (an escape sequence for the sharer's terminal) is refused.
        for recipient in [#"Dr. \u001b[2J"#, #"A\u0085B"#, #"A\u007fB"#] {
            guard case .failure(let control) = SharedLinkHost.readManifestRequest(Array(#"{"recipient":"\#(recipient)"}"#.utf8)) else {
                Issue.record("a recipient with control characters was read: \(recipient)")
                continue
            }
            #expect(control.reason.contains("control characters"))
        }
        #expect((try? SharedLinkHost.readManifestRequest(Array(#"{"recipient":"Dr. Díaz 👩‍⚕️"}"#.utf8)).get())?.recipient
                == "Dr. Díaz 👩‍⚕️")
    }

    /// The JWE shape check of uploaded files.
    @Test func uploadedFilesMustBeDirectA256GCMJWEs() throws {
        let jwe = try SHLFile.encrypt(Self.summary, contentType: SHLContentType.fhirJSON, key: SHLink.newKey())
        #expect(SharedLinkHost.isDirectJWE(jwe))
        let parts = jwe.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(!SharedLinkHost.isDirectJWE(parts.dropLast().joined(separator: ".")))
        #expect(!SharedLinkHost.isDirectJWE([parts[0], "AAAA", parts[2], parts[3], parts[4]].joined(separator: ".")))
        let otherHeader = Data(#"{"alg":"RSA-OAEP","enc":"A256GCM"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(!SharedLinkHost.isDirectJWE([otherHeader, "", parts[2], parts[3], parts[4]].joined(separator: ".")))
        #expect(!SharedLinkHost.isDirectJWE(""))
        #expect(!SharedLinkHost.isDirectJWE("...."))
    }
}
