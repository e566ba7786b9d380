import Benchmark
import FhirBlocks
import FhirBlocksServer
import FhirBlocksSQLite
import FhirBlocksStore
import Foundation
import Logging

// FHIR search (issue 15) beside a protected read by id, in the same run, over the same HTTP
// client and server: 100,000 Observations of one patient (50 LOINC-like codes, one a day over
// ten years: ~2,000 per code, ~200 per code and year), stored once through the store (the
// index is written as the server writes it), then
//
// - Protected read: `GET /fhir/Observation/o12345` (token, permission, labels, read, audit);
// - Search: `GET /fhir/Observation?code=http://loinc.org|code-7&date=ge2020-01-01&date=lt2021-01-01&_count=50`
//   (first page of 50 of ~200 matches, with `total`, label filter and audit of the page).
//
// Goal: the search takes at most three times the read.
let searchBenchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .throughput], timeUnits: .microseconds, warmupIterations: 20,
                                                maxDuration: .seconds(10), maxIterations: 2_000)

    Benchmark("FHIR search fixture: protected read by id among 100,000 Observations", configuration: configuration) { benchmark in
        let fixture = try await SearchFixture.shared()
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.server.get("\(fixture.server.fhirBlocksURL)/fhir/Observation/o12345", bearer: fixture.token))
        }
    }

    Benchmark("FHIR search: one code and a date range among 100,000 Observations, first page of 50", configuration: configuration) { benchmark in
        let fixture = try await SearchFixture.shared()
        let url = "\(fixture.server.fhirBlocksURL)/fhir/Observation?code=http%3A%2F%2Floinc.org%7Ccode-7&date=ge2020-01-01&date=lt2021-01-01&_count=50"
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.server.get(url, bearer: fixture.token))
        }
    }
}

/// A FhirBlocks server whose wallet holds 100,000 Observations, and the wallet's token.
struct SearchFixture: Sendable {
    static let instance = FixtureOnce { try await SearchFixture.start() }

    static func shared() async throws -> SearchFixture { try await instance.get() }

    let server: ServerFixture
    let token: String
    /// The server's store (the `$everything` benchmarks read it directly for a reference row).
    let store: SQLiteTrustStore

    static func start() async throws -> SearchFixture {
        var logger = Logger(label: "bench-search")
        logger.logLevel = .error
        // One client sends as fast as it can: above the default 200 requests/s per address.
        let unlimited = RateLimit(perSecond: 1_000_000, burst: 1_000_000)
        let (base, store) = try await startFhirBlocks(logger: logger, configuration: ServerConfiguration(rateLimitPerAddress: unlimited,
                                                                                                        rateLimitPerIdentity: unlimited))
        let setup = FixtureSetup(base: base)
        let walletKey = CsiSigningKey.generate()
        let wallet = try await setup.register(key: walletKey, applicationClass: "org.fhirblocks.csa")
        let token = try await setup.token(csi: wallet, key: walletKey, scope: "patient/*.cruds conf/V")
        try await setup.client.shutdown()
        // One Observation a day from 2015 on, codes in turn; stored in batches.
        let day0 = Int64(1_420_070_400_000)   // 2015-01-01
        let now = Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
        var change = TrustChange()
        for index in 0..<100_000 {
            let instant = Timestamp(millisecondsSince1970: day0 + Int64(index / 27) * 86_400_000 + Int64(index % 27) * 3_000_000)
            let json = #"{"resourceType":"Observation","id":"o\#(index)","status":"final","#
                + #""category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],"#
                + #""code":{"coding":[{"system":"http://loinc.org","code":"code-\#(index % 50)"}]},"#
                + #""effectiveDateTime":"\#(instant.wireText)","valueQuantity":{"value":\#(index % 200),"unit":"/min"},"#
                + #""meta":{"versionId":"1","lastUpdated":"\#(now.wireText)"}}"#
            change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: "Observation", id: "o\(index)", patient: wallet, versionID: 1,
                                                                                  lastUpdated: now, json: Array(json.utf8))))
            if change.resources.count == 5_000 {
                try await store.commit(change)
                change = TrustChange()
            }
        }
        let server = ServerFixture(helloURL: base, fhirBlocksURL: base, readToken: token, app: (wallet, walletKey))
        return SearchFixture(server: server, token: token, store: store)
    }
}
