import Foundation
@testable import HealthWebApp
import OpenHealthKit
import SmartHealthCards
import Synchronization
import Testing
import TestSupport

/// The Health cards page keeps each card's verdict between loads, and decides it again when the
/// issuer's keys or revocation list change or the clock crosses the card's `exp`.
@Suite("Health cards page: kept verdicts")
struct CardVerdictCacheTests {
    static let issuer = "https://issuer.example.org"
    static let bundle = """
        {"resourceType":"Bundle","type":"collection","entry":[
        {"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"family":"Anyperson","given":["Jane"]}],"birthDate":"1961-01-20"}},
        {"fullUrl":"resource:1","resource":{"resourceType":"Immunization","status":"completed",\
        "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]},\
        "patient":{"reference":"resource:0"},"occurrenceDateTime":"2021-01-01","lotNumber":"0000001"}}
        ]}
        """

    /// A folder laid out like the issuer's web root (`.well-known/jwks.json` and its CRL), read by
    /// the real `FolderKeyResolver`, which follows changes to the files.
    struct IssuerFolder {
        let folder: URL
        let key: SHCIssuerKey

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("verdicts-\(UUID().uuidString)")
            var key = SHCIssuerKey.generate()
            key.crlVersion = 1
            self.key = key
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(".well-known/crl"), withIntermediateDirectories: true)
            try Data(key.publicJWKS).write(to: folder.appendingPathComponent(".well-known/jwks.json"), options: .atomic)
            try revoke([])
        }

        /// Publishes the revocation list with `rids` (a new file, as an issuer's deploy would).
        func revoke(_ rids: [String]) throws {
            let list = #"{"kid":"\#(key.kid)","method":"rid","ctr":1,"rids":[\#(rids.map { "\"\($0)\"" }.joined(separator: ","))]}"#
            try Data(list.utf8).write(to: folder.appendingPathComponent(".well-known/crl/\(key.kid).json"), options: .atomic)
        }

        func card(nbf: Date, exp: Date? = nil, rid: String? = nil) throws -> HKVerifiableClinicalRecord {
            let jws = try SHCIssuer(key: key, issuer: CardVerdictCacheTests.issuer).issue(bundle: Array(CardVerdictCacheTests.bundle.utf8),
                                                                                       nbf: nbf, exp: exp, rid: rid)
            return HKVerifiableClinicalRecord(
                recordTypes: ["https://smarthealth.cards#health-card", "https://smarthealth.cards#immunization"],
                issuerIdentifier: CardVerdictCacheTests.issuer,
                subject: HKVerifiableClinicalRecordSubject(fullName: "Jane Anyperson", dateOfBirthComponents: nil),
                issuedDate: nbf, relevantDate: nbf, expirationDate: exp, itemNames: ["COVID-19 vaccine"],
                sourceType: .smartHealthCard, dataRepresentation: Data(jws.utf8))
        }
    }

    /// The real folder resolver, counting the key set lookups made through it.
    final class CountingResolver: IssuerKeyResolver {
        let base: FolderKeyResolver
        let keySetLookups = Mutex(0)

        init(base: FolderKeyResolver) {
            self.base = base
        }

        func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet? {
            keySetLookups.withLock { $0 += 1 }
            return try await base.keySet(issuer: issuer)
        }

        func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList? {
            try await base.revocationList(issuer: issuer, kid: kid)
        }
    }

    /// A page over the fixture's store with `resolver` and `clock`, and its session cookie.
    static func page(_ store: HKHealthStore, resolver: any IssuerKeyResolver, clock: TestClock) throws -> WebTestFixture {
        let webApp = try HealthWebApp(store: store, calendar: WebTestFixture.calendar, clock: clock.reader,
                                      verifier: SHCVerifier(resolver: resolver, now: clock.now))
        return WebTestFixture(store: store, webApp: webApp)
    }

    static func verdicts(_ body: String) -> [String] {
        body.components(separatedBy: "<p class=\"verdict\"").dropFirst().map { String($0.prefix { $0 != "\n" }) }
    }

    @Test("a kept verdict is used while nothing changed: a second load asks for the issuer's keys once, not once per card")
    func keptWhileUnchanged() async throws {
        let issuer = try IssuerFolder()
        defer { try? FileManager.default.removeItem(at: issuer.folder) }
        let base = try await WebTestFixture.make(days: 1)
        let clock = TestClock(WebTestFixture.now)
        let cards = try (0..<3).map { try issuer.card(nbf: WebTestFixture.now.addingTimeInterval(-86_400 * Double($0 + 1))) }
        try await base.store.saveHealthRecords(cards, source: HKSource(name: "Card import", bundleIdentifier: "org.example.cards"))
        let resolver = CountingResolver(base: FolderKeyResolver([Self.issuer: issuer.folder]))
        let fixture = try Self.page(base.store, resolver: resolver, clock: clock)
        let (first, lookupsAfterFirst, second) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let first = try await client.send(.get, "/cards", cookie: cookie)
            let lookups = resolver.keySetLookups.withLock { $0 }
            return (first, lookups, try await client.send(.get, "/cards", cookie: cookie))
        }
        #expect(Self.verdicts(first.body).count == 3)
        #expect(Self.verdicts(first.body).allSatisfy { $0.contains("Verifies now.") }, "\(Self.verdicts(first.body))")
        #expect(second.body.components(separatedBy: "Verifies now.").count == 4)
        #expect(resolver.keySetLookups.withLock { $0 } - lookupsAfterFirst == 1)
    }

    @Test("a card's verdict changes when the issuer's revocation list changes, and when its key set does")
    func revocationListChange() async throws {
        let issuer = try IssuerFolder()
        defer { try? FileManager.default.removeItem(at: issuer.folder) }
        let base = try await WebTestFixture.make(days: 1)
        let clock = TestClock(WebTestFixture.now)
        let card = try issuer.card(nbf: WebTestFixture.now.addingTimeInterval(-86_400), rid: "c2ViYXN0aWFu")
        try await base.store.saveHealthRecords([card], source: HKSource(name: "Card import", bundleIdentifier: "org.example.cards"))
        let fixture = try Self.page(base.store, resolver: FolderKeyResolver([Self.issuer: issuer.folder]), clock: clock)
        let (before, after, restored, rekeyed) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let before = try await client.send(.get, "/cards", cookie: cookie)
            try issuer.revoke(["c2ViYXN0aWFu"])
            let after = try await client.send(.get, "/cards", cookie: cookie)
            try issuer.revoke([])
            let restored = try await client.send(.get, "/cards", cookie: cookie)
            try Data(SHCIssuerKey.generate().publicJWKS).write(to: issuer.folder.appendingPathComponent(".well-known/jwks.json"), options: .atomic)
            return (before, after, restored, try await client.send(.get, "/cards", cookie: cookie))
        }
        #expect(before.body.contains("<strong>Verifies now.</strong>"), "\(Self.verdicts(before.body))")
        #expect(after.body.contains("<strong>Does not verify now: the issuer has revoked it.</strong>"), "\(Self.verdicts(after.body))")
        #expect(restored.body.contains("<strong>Verifies now.</strong>"), "\(Self.verdicts(restored.body))")
        #expect(rekeyed.body.contains("<strong>Does not verify now.</strong>"), "\(Self.verdicts(rekeyed.body))")
    }

    @Test("an expiring card's kept verdict flips at its exp as the scripted clock passes it, and is kept on either side")
    func expiryBoundary() async throws {
        let issuer = try IssuerFolder()
        defer { try? FileManager.default.removeItem(at: issuer.folder) }
        let clock = TestClock(WebTestFixture.now)
        let exp = WebTestFixture.now.addingTimeInterval(3600)
        let card = try issuer.card(nbf: WebTestFixture.now.addingTimeInterval(-86_400), exp: exp)
        let resolver = CountingResolver(base: FolderKeyResolver([Self.issuer: issuer.folder]))
        // The cache the page keeps, asked as the page asks it: a verifier as of the clock's now.
        let cache = CardVerdictCache()
        func check() async -> CardCheck? {
            await cache.checks(for: [card], with: SHCVerifier(resolver: resolver, now: clock.now))[card.uuid]
        }
        #expect(await check()?.verifies == true)
        clock.advance(by: 3599)
        let lookups = resolver.keySetLookups.withLock { $0 }
        #expect(await check()?.verifies == true)
        // Kept: only the load's one key set lookup, no verification (which would look the keys up again).
        #expect(resolver.keySetLookups.withLock { $0 } - lookups == 1)
        clock.advance(by: 2)
        let expired = await check()
        #expect(expired?.verifies == false)
        #expect(expired?.reasons.contains { $0.contains("expired") } == true, "\(expired?.reasons ?? [])")
        // Expired stays expired, from the kept verdict.
        clock.advance(by: 86_400)
        let later = resolver.keySetLookups.withLock { $0 }
        #expect(await check()?.verifies == false)
        #expect(resolver.keySetLookups.withLock { $0 } - later == 1)
    }

    @Test("the page shows fifty cards, newest first, with a link to older ones")
    func paging() async throws {
        let issuer = try IssuerFolder()
        defer { try? FileManager.default.removeItem(at: issuer.folder) }
        let base = try await WebTestFixture.make(days: 1)
        let clock = TestClock(WebTestFixture.now)
        let cards = try (0..<52).map { try issuer.card(nbf: WebTestFixture.now.addingTimeInterval(-3600 * Double($0 + 1))) }
        try await base.store.saveHealthRecords(cards, source: HKSource(name: "Card import", bundleIdentifier: "org.example.cards"))
        let fixture = try Self.page(base.store, resolver: FolderKeyResolver([Self.issuer: issuer.folder]), clock: clock)
        let (first, second) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let first = try await client.send(.get, "/cards", cookie: cookie)
            // The Older link carries the cursor after the 50th card (its date, one card of that date shown).
            let older = try #require(CardsKeysetPagingTests.olderLink(first.body))
            return (first, try await client.send(.get, older, cookie: cookie))
        }
        #expect(Self.verdicts(first.body).count == 50)
        let fiftieth = WebTestFixture.now.addingTimeInterval(-3600 * 50).timeIntervalSinceReferenceDate
        #expect(first.body.contains("<a href=\"/cards?page=2&amp;before=\(fiftieth)&amp;skip=1\">Older cards</a>"))
        #expect(Self.verdicts(second.body).count == 2)
        #expect(second.body.contains("<a href=\"/cards\">Newer cards</a>"))
        #expect(!second.body.contains("Older cards"))
    }
}
