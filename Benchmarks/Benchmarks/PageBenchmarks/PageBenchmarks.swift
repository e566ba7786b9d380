import AsyncHTTPClient
import Benchmark
import Foundation
import NIOCore

// Issue 34, "no cost that grows with history on a path a person waits on": each page's time at
// 100 and at 10,000 stored items, the two beside each other in the same run (the pairs are
// named "… (100 …)" and "… (10,000 …)"), on one machine, release build:
//
// - Health cards page (`health ui`, `GET /cards` over loopback HTTP with a session): the newest
//   page, and a page from the middle by its Older link's cursor (`before`, `skip`), of 100 and of
//   10,000 stored cards (one issuer, each card a day apart). Each page shows 50 cards with their
//   QR codes and kept verdicts (CardVerdictCache). Before, page N read N×50 cards.
// - Sharing page, "who saw my data": the AuditEvent search it sends
//   (`GET /fhir/AuditEvent?_count=50&agent:not=WALLET` on a FhirBlocks server over loopback, the
//   wallet's token), for a wallet whose data others read 100 and 10,000 times; the log holds both
//   wallets' entries. Before, the page read every entry of the log (the unpaged search, measured
//   as the reference at 10,000).
// - Sharing page with a wallet (`health ui` with a FhirBlocks wallet, `GET /sharing` over loopback
//   HTTP with a session): the permissions, the newest 50 of others' actions and the audit log
//   verified from the last verified checkpoint, on a server whose log holds 100 and 10,000 reads of
//   the wallet's data by an app (one server per size).
// - `Patient/$everything` through HTTP (`GET /fhir/Patient/{id}/$everything?_count=50`, the
//   patient's own token): the first page and a page from the middle (`_cursor`), of compartments
//   of 100 and of 10,000 resources on the same server; beside them the store's page alone
//   (`TrustStore.resources(patient:after:limit:)`, no HTTP) from the same cursor.
//
// The figure is to stay flat from 100 to 10,000: each pair's ratio is printed by scripts/bench.sh
// pages. Thresholds for `--check`: a 25 % fall of the median wall clock.

let benchmarks: @Sendable () -> Void = {
    let pageThresholds: [BenchmarkMetric: BenchmarkThresholds] = [.wallClock: .init(relative: [.p50: 25.0])]
    let configuration = Benchmark.Configuration(metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 5,
                                                maxDuration: .seconds(5), maxIterations: 300, thresholds: pageThresholds)
    cardPageBenchmarks(configuration)
    auditPageBenchmarks(configuration)
    walletPageBenchmarks(configuration)
    everythingPageBenchmarks(configuration)
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Makes a benchmark fixture the first time it is asked for and hands the same one out after.
actor FixtureOnce<Fixture: Sendable> {
    private let make: @Sendable () async throws -> Fixture
    private var fixture: Fixture?

    init(_ make: @escaping @Sendable () async throws -> Fixture) {
        self.make = make
    }

    func get() async throws -> Fixture {
        if let fixture { return fixture }
        let made = try await make()
        fixture = made
        return made
    }
}

/// The HTTP client of every page benchmark (keep-alive, no redirects followed).
let pageClient: HTTPClient = {
    var configuration = HTTPClient.Configuration()
    configuration.redirectConfiguration = .disallow
    configuration.connectionPool = .init(idleTimeout: .seconds(120))
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}()

/// GETs `url`; returns the status, the body and the headers.
func fetch(_ url: String, headers: [(String, String)] = []) async throws -> (status: Int, body: String, headers: [(String, String)]) {
    var request = HTTPClientRequest(url: url)
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await pageClient.execute(request, timeout: .seconds(120))
    let body = try await response.body.collect(upTo: 64 << 20)
    return (Int(response.status.code), String(buffer: body), response.headers.map { ($0.name, $0.value) })
}

/// GETs `url` and requires 200.
@discardableResult
func page(_ url: String, headers: [(String, String)] = []) async throws -> String {
    let answer = try await fetch(url, headers: headers)
    guard answer.status == 200 else { throw FixtureError("GET \(url): \(answer.status) \(answer.body.prefix(300))") }
    return answer.body
}
