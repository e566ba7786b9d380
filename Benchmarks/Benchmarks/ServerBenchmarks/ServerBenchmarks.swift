import AsyncHTTPClient
import Benchmark
import FHIRCore
import FhirBlocks
import FhirBlocksServer
import FhirBlocksSQLite
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

// The FhirBlocks server against a Hummingbird hello-world route, in one process, one run, the
// same HTTP client (AsyncHTTPClient, keep-alive) over loopback:
//
// - Token issuance: `POST /oauth/token` client_credentials with a fresh ES256 client
//   assertion each time (built outside the timed part): form parsing, assertion verification
//   (one P-256 verify), replay check (a write), permission ledger, token storage and its audit
//   entry (one SQLite transaction).
// - Protected read: `GET /fhir/Observation/o1` with a bearer token: token lookup, permission
//   re-check, label filtering, the resource read, and an audit entry (one transaction).
// - The ceiling: `GET /hello` on a bare Hummingbird 2 router answering "Hello", the cost of
//   HTTP alone on this machine.
// All measure one request at a time (latency); the store is SQLite in a temporary folder.

let benchmarks: @Sendable () -> Void = {
    searchBenchmarks()
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .throughput], timeUnits: .microseconds, warmupIterations: 20,
                                                maxDuration: .seconds(10), maxIterations: 5_000)

    Benchmark("HTTP request (ceiling: Hummingbird hello-world)", configuration: configuration) { benchmark in
        let fixture = try await ServerFixture.shared()
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.get(fixture.helloURL))
        }
    }

    Benchmark("HTTP request (FhirBlocks protected read)", configuration: configuration) { benchmark in
        let fixture = try await ServerFixture.shared()
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.get("\(fixture.fhirBlocksURL)/fhir/Observation/o1", bearer: fixture.readToken))
        }
    }

    Benchmark("HTTP request (FhirBlocks token issuance)", configuration: configuration) { benchmark in
        let fixture = try await ServerFixture.shared()
        let forms = try (0..<benchmark.scaledIterations.count).map { _ in try fixture.tokenForm() }
        benchmark.startMeasurement()
        for form in forms {
            blackHole(try await fixture.post("\(fixture.fhirBlocksURL)/oauth/token", form: form))
        }
        benchmark.stopMeasurement()
    }
}
