import Benchmark
import Foundation

// A profiling aid, registered only when SERVER_PROBE is set (`read` or `hello`): one iteration
// of SERVER_PROBE_REQUESTS requests (default 4,096) from the 16 concurrent clients of the
// 16-client benchmark, to the protected read or to hello-world, and nothing else. Run the
// binary standalone under `valgrind --tool=callgrind` or `perf stat` with two request counts:
// the difference over the difference in requests is one request's cost, the fixture's start
// cancelling out. Example:
//   SERVER_PROBE=read SERVER_PROBE_REQUESTS=8192 .build/release/ServerBenchmarks --filter 'Server probe'
let serverProbeBenchmarks: @Sendable () -> Void = {
    let environment = ProcessInfo.processInfo.environment
    guard let kind = environment["SERVER_PROBE"], kind == "read" || kind == "hello" else { return }
    let requests = environment["SERVER_PROBE_REQUESTS"].flatMap(Int.init) ?? 4_096
    let configuration = Benchmark.Configuration(metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 0, scalingFactor: .one,
                                                maxDuration: .seconds(600), maxIterations: 1)
    Benchmark("Server probe: \(requests) requests (\(kind)), 16 concurrent clients", configuration: configuration) { _ in
        let fixture = try await ServerFixture.shared()
        let perClient = max(1, requests / ServerFixture.concurrentClients)
        if kind == "read" {
            blackHole(try await fixture.burst("\(fixture.fhirBlocksURL)/fhir/Observation/o1", bearer: fixture.readToken, perClient: perClient))
        } else {
            blackHole(try await fixture.burst(fixture.helloURL, perClient: perClient))
        }
    }
}
