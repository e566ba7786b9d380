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
// The first three measure one request at a time (latency). The last runs 16 concurrent
// clients (keep-alive connections), each sending 32 requests one after the other, against
// hello-world and then the protected read in every iteration, and reports both throughputs and
// the read's fraction of hello-world's (the goal: ≥ 50 %). There, the audit entries of reads
// arriving together are committed in one transaction (group commit), each read answering once
// its entry is durable. The store is SQLite in a temporary folder.

let helloPerSecond = BenchmarkMetric.custom("hello-world (requests/s)", polarity: .prefersLarger, useScalingFactor: false)
let readsPerSecond = BenchmarkMetric.custom("protected read (requests/s)", polarity: .prefersLarger, useScalingFactor: false)
let readPercentOfHello = BenchmarkMetric.custom("read ÷ hello-world (%)", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    // `scripts/bench.sh --check` allows each figure a 25 % fall of its median from the stored baseline.
    let measured: [BenchmarkMetric] = [.wallClock, .throughput, helloPerSecond, readsPerSecond, readPercentOfHello, auditEntriesPerSecond,
        auditGroupSize, readsPerGroup, groupWriteMicroseconds, readWaitMicroseconds, writerBusyPercent]
    Benchmark.defaultConfiguration.thresholds = Dictionary(uniqueKeysWithValues: measured.map { ($0, BenchmarkThresholds(relative: [.p50: 25.0])) })
    searchBenchmarks()
    indexWriteBenchmarks()
    serverProbeBenchmarks()
    auditCommitBenchmarks()
    auditUnderLoadBenchmarks()
    everythingBenchmarks()
    everythingScaleBenchmarks()
    exportBenchmarks()
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

    let concurrent = Benchmark.Configuration(metrics: [.wallClock, helloPerSecond, readsPerSecond, readPercentOfHello], timeUnits: .milliseconds,
                                             warmupIterations: 2, scalingFactor: .one, maxDuration: .seconds(30), maxIterations: 30)
    Benchmark("HTTP, 16 concurrent clients: protected read and hello-world, 512 requests each", configuration: concurrent) { benchmark in
        let fixture = try await ServerFixture.shared()
        for _ in benchmark.scaledIterations {
            let hello = try await fixture.burst(fixture.helloURL, perClient: 32)
            let reads = try await fixture.burst("\(fixture.fhirBlocksURL)/fhir/Observation/o1", bearer: fixture.readToken, perClient: 32)
            benchmark.measurement(helloPerSecond, Int(hello))
            benchmark.measurement(readsPerSecond, Int(reads))
            benchmark.measurement(readPercentOfHello, Int((100 * reads / hello).rounded()))
        }
    }
}
