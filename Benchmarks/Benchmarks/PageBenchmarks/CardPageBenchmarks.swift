import Benchmark
import BenchmarkSupport
import Foundation
import HealthWebApp
import Hummingbird
import OpenHealthKit
import SmartHealthCards

/// The Health cards page, newest and from the middle, at 100 and at 10,000 stored cards.
func cardPageBenchmarks(_ configuration: Benchmark.Configuration) {
    for size in CardPageFixture.sizes {
        let label = size.formatted()
        Benchmark("Cards page: the newest 50 (\(label) cards)", configuration: configuration) { benchmark in
            let fixture = try await CardPageFixture.shared(size)
            try fixture.check(try await page(fixture.origin + "/cards", headers: fixture.headers))
            for _ in benchmark.scaledIterations {
                blackHole(try await page(fixture.origin + "/cards", headers: fixture.headers))
            }
        }
        Benchmark("Cards page: 50 from the middle by the Older link's cursor (\(label) cards)", configuration: configuration) { benchmark in
            let fixture = try await CardPageFixture.shared(size)
            try fixture.check(try await page(fixture.origin + fixture.middle, headers: fixture.headers))
            for _ in benchmark.scaledIterations {
                blackHole(try await page(fixture.origin + fixture.middle, headers: fixture.headers))
            }
        }
    }
}

/// A store of `size` cards (one a day back from 2026-01-01, one issuer, all verifying), `health
/// ui` over it on 127.0.0.1, and a session.
struct CardPageFixture: Sendable {
    static let sizes = [100, 10_000]
    static let issuer = "https://issuer.example.org"
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let fixtures = [100: FixtureOnce { try await CardPageFixture.start(100) }, 10_000: FixtureOnce { try await CardPageFixture.start(10_000) }]
    static let bundle = """
        {"resourceType":"Bundle","type":"collection","entry":[
        {"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"family":"Anyperson","given":["Jane"]}],"birthDate":"1961-01-20"}},
        {"fullUrl":"resource:1","resource":{"resourceType":"Immunization","status":"completed",\
        "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]},"patient":{"reference":"resource:0"},\
        "occurrenceDateTime":"2021-01-01","lotNumber":"0000001"}}
        ]}
        """

    static func shared(_ size: Int) async throws -> CardPageFixture {
        guard let once = fixtures[size] else { throw FixtureError("no \(size)-card fixture") }
        return try await once.get()
    }

    let origin: String
    let headers: [(String, String)]
    /// The path of the page from the middle (cards size/2 + 1 …), as its Older link names it.
    let middle: String

    /// A full page of verifying cards, not an error page, is measured.
    func check(_ body: String) throws {
        let shown = body.components(separatedBy: "<h2 id=\"card-").count - 1
        let verifying = body.components(separatedBy: "<strong>Verifies now.</strong>").count - 1
        guard shown == 50, verifying == 50 else { throw FixtureError("the cards page shows \(shown) cards, \(verifying) verifying") }
    }

    static func start(_ size: Int) async throws -> CardPageFixture {
        let folder = try ScratchFolder.untilExit("cards-page-\(size)")
        let store = try BenchmarkStore.open(in: folder)
        let key = SHCIssuerKey.generate()
        let issuer = try SHCIssuer(key: key, issuer: Self.issuer)
        let day = 86_400.0
        var cards: [HKVerifiableClinicalRecord] = []
        for index in 0..<size {
            let date = now.addingTimeInterval(-day * Double(index + 1))
            let jws = try issuer.issue(bundle: Array(bundle.utf8), nbf: date)
            cards.append(HKVerifiableClinicalRecord(
                recordTypes: ["https://smarthealth.cards#health-card", "https://smarthealth.cards#immunization"], issuerIdentifier: Self.issuer,
                subject: HKVerifiableClinicalRecordSubject(fullName: "Jane Anyperson", dateOfBirthComponents: nil),
                issuedDate: date, relevantDate: date, expirationDate: nil, itemNames: ["COVID-19 vaccine"],
                sourceType: .smartHealthCard, dataRepresentation: Data(jws.utf8)))
            if cards.count == 1_000 {
                try await store.saveHealthRecords(cards, source: HKSource(name: "Card import", bundleIdentifier: "org.example.cards"))
                cards = []
            }
        }
        if !cards.isEmpty { try await store.saveHealthRecords(cards, source: HKSource(name: "Card import", bundleIdentifier: "org.example.cards")) }
        let keys = try SHCJWKSet(jsonBytes: key.publicJWKS)
        let webApp = try HealthWebApp(store: store, clock: { now }, verifier: SHCVerifier(resolver: StaticKeyResolver([Self.issuer: keys]), now: now))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = webApp.application(port: 0) { continuation.yield($0) }
        Task { try await application.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw FixtureError("health ui did not start") }
        let start = try await fetch(webApp.startURL(port: port))
        guard let cookie = start.headers.first(where: { $0.0.lowercased() == "set-cookie" })?.1.split(separator: ";").first else {
            throw FixtureError("no session cookie: \(start.status)")
        }
        // The middle page: the cards after card size/2 (its date), one of that date already shown.
        let last = now.addingTimeInterval(-day * Double(size / 2)).timeIntervalSinceReferenceDate
        return CardPageFixture(origin: "http://127.0.0.1:\(port)", headers: [("Cookie", String(cookie))],
                               middle: "/cards?page=\(size / 100 + 1)&before=\(last)&skip=1")
    }
}
