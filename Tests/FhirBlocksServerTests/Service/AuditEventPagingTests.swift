import ExactJSON
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Testing
import TestSupport

/// The AuditEvent search paged newest first (`_count`, `_cursor`, `agent:not`), as the Sharing
/// page reads "who saw my data": following the `next` links yields exactly the entries the
/// unpaged search gives (less the agent left out), each once, newest first; a malformed
/// parameter is refused; others' entries are found past any number of the wallet's own.
@Suite struct AuditEventPagingTests {
    /// Each match's log index (the `log-N` id), in order.
    static func indexes(_ bundle: JSONObject) -> [Int] {
        (bundle["entry"]?.arrayValue ?? []).compactMap { entry -> Int? in
            guard let id = entry.objectValue?["resource"]?.objectValue?["id"]?.stringValue, id.hasPrefix("log-") else { return nil }
            return Int(id.dropFirst(4))
        }
    }

    static func agent(_ event: JSONValue) -> String? {
        event.objectValue?["resource"]?.objectValue?["agent"]?.arrayValue?.first?.objectValue?["who"]?.objectValue?["identifier"]?
            .objectValue?["value"]?.stringValue
    }

    /// The `next` link's query parameters, or nil.
    static func next(_ bundle: JSONObject) -> [(String, String)]? {
        guard let link = (bundle["link"]?.arrayValue ?? []).first(where: { $0.objectValue?["relation"]?.stringValue == "next" }),
              let url = link.objectValue?["url"]?.stringValue, let query = url.split(separator: "?", maxSplits: 1).last,
              let fields = try? FormBody.parse(Array(query.utf8), mode: .strict, repeatsAllowed: true).value.fields else { return nil }
        return fields.map { ($0.name, $0.value) }
    }

    @Test(arguments: TestBackend.available)
    func pagesNewestFirstWithoutTheWalletsOwnEntries(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let reader = try await world.register(.app("reader"))
            let stranger = try await world.register(.wallet("s", firstName: "B"))
            #expect(try await world.grant(from: wallet, to: [reader], resource: "Observation", sensitivity: []).status == 200)
            let walletToken = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            #expect(await world.fhir("PUT", "Observation/o1", token: walletToken,
                                     body: Array(#"{"resourceType":"Observation","id":"o1","status":"final","code":{"text":"x"}}"#.utf8)).status == 201)
            let readerToken = try await world.vacaToken(reader, scope: "patient/Observation.rs conf/V")
            let strangerToken = try #require(world.json(try await world.clientCredentials(stranger,
                                                                                          scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            // The reader's reads, the wallet's own reads and another patient's entries, interleaved.
            var generator = SplitMix64(seed: 0xA0D1_7034)
            for _ in 0..<40 {
                switch generator.below(3) {
                case 0: #expect(await world.fhir("GET", "Observation/o1", token: readerToken).status == 200)
                case 1: #expect(await world.fhir("GET", "Observation/o1", token: walletToken).status == 200)
                default: _ = await world.fhir("GET", "Observation", token: strangerToken)
                }
            }

            // What the unpaged search gives the wallet, less its own entries, newest first.
            let all = world.json(await world.fhir("GET", "AuditEvent", token: walletToken))
            let expected = (all["entry"]?.arrayValue ?? []).filter { Self.agent($0) != wallet.csi.rawValue }
                .compactMap { $0.objectValue?["resource"]?.objectValue?["id"]?.stringValue }.compactMap { Int($0.dropFirst(4)) }
                .sorted(by: >)
            #expect(expected.count >= 10)

            for count in [1, 3, 7, 50] {
                var parameters: [(String, String)] = [("_count", String(count)), ("agent:not", wallet.csi.rawValue)]
                var seen: [Int] = []
                var pages = 0
                while pages < 200 {
                    pages += 1
                    let response = await world.fhir("GET", "AuditEvent", token: walletToken, parameters: parameters)
                    #expect(response.status == 200)
                    let bundle = world.json(response)
                    let page = Self.indexes(bundle)
                    #expect(page.count <= count)
                    #expect((bundle["entry"]?.arrayValue ?? []).allSatisfy { Self.agent($0) != wallet.csi.rawValue })
                    seen += page
                    guard let next = Self.next(bundle) else { break }
                    parameters = next
                }
                // The entries logged while paging (this search's own reads) are the wallet's: left out.
                #expect(seen == expected, "count \(count)")
                #expect(Set(seen).count == seen.count)
            }

            // Without agent:not, the wallet's own entries are listed too, newest first.
            let withOwn = world.json(await world.fhir("GET", "AuditEvent", token: walletToken, parameters: [("_count", "200")]))
            let ownIndexes = Self.indexes(withOwn)
            #expect(ownIndexes == ownIndexes.sorted(by: >))
            #expect((withOwn["entry"]?.arrayValue ?? []).contains { Self.agent($0) == wallet.csi.rawValue })

            // Malformed paging parameters are refused.
            for bad in [("_count", "0"), ("_count", "x"), ("_cursor", "-1"), ("_cursor", "1.5"), ("agent:not", "nobody")] {
                #expect(await world.fhir("GET", "AuditEvent", token: walletToken, parameters: [bad]).status == 400, "\(bad)")
            }
            // A cursor past the log's end reads from its end; a cursor of 0 reads nothing and ends.
            let past = world.json(await world.fhir("GET", "AuditEvent", token: walletToken,
                                                   parameters: [("_count", "3"), ("_cursor", "999999999"), ("agent:not", wallet.csi.rawValue)]))
            #expect(Self.indexes(past) == Array(expected.prefix(3)))
            let start = world.json(await world.fhir("GET", "AuditEvent", token: walletToken, parameters: [("_count", "3"), ("_cursor", "0")]))
            #expect(Self.indexes(start).isEmpty && Self.next(start) == nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func othersEntriesAreFoundPastTheWalletsOwn(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let reader = try await world.register(.app("reader"))
            #expect(try await world.grant(from: wallet, to: [reader], resource: "Observation", sensitivity: []).status == 200)
            let walletToken = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            #expect(await world.fhir("PUT", "Observation/o1", token: walletToken,
                                     body: Array(#"{"resourceType":"Observation","id":"o1","status":"final","code":{"text":"x"}}"#.utf8)).status == 201)
            let readerToken = try await world.vacaToken(reader, scope: "patient/Observation.rs conf/V")
            #expect(await world.fhir("GET", "Observation/o1", token: readerToken).status == 200)
            // Then more of the wallet's own entries than one page reads (one entry per read).
            for _ in 0..<(AuditEventPaging.scanLimit + 10) {
                _ = await world.fhir("GET", "Observation/o1", token: walletToken)
            }
            // Others' entries are found at once (the log's index of the patient's entries), not
            // after reading the wallet's own thousands.
            let all = world.json(await world.fhir("GET", "AuditEvent", token: walletToken))
            let expected = (all["entry"]?.arrayValue ?? []).filter { Self.agent($0) != wallet.csi.rawValue }
                .compactMap { $0.objectValue?["resource"]?.objectValue?["id"]?.stringValue }.compactMap { Int($0.dropFirst(4)) }
                .sorted(by: >)
            #expect(!expected.isEmpty)
            let first = world.json(await world.fhir("GET", "AuditEvent", token: walletToken,
                                                    parameters: [("_count", "50"), ("agent:not", wallet.csi.rawValue)]))
            let seen = Self.indexes(first)
            #expect(Self.next(first) == nil)
            #expect(seen == expected)
        }
    }
}
