import Benchmark
import Foundation

// A profiling aid, registered only when SERVER_PROBE is set (`read` or `hello`): one iteration
// of SERVER_PROBE_REQUESTS requests (default 4,096) from SERVER_PROBE_CLIENTS concurrent
// clients (default 16, as in the 16-client benchmark; 1 under valgrind, which runs one thread
// at a time and would let 16 waiting requests time out), to the protected read or to
// hello-world, and nothing else. Run the
// binary standalone under `valgrind --tool=callgrind` or `perf stat` with two request counts:
// the difference over the difference in requests is one request's cost, the fixture's start
// cancelling out. Example:
//   SERVER_PROBE=read SERVER_PROBE_REQUESTS=8192 .build/release/ServerBenchmarks --filter 'Server probe'
let serverProbeBenchmarks: @Sendable () -> Void = {
    let environment = ProcessInfo.processInfo.environment
    guard let kind = environment["SERVER_PROBE"], kind == "read" || kind == "hello" else { return }
    let requests = environment["SERVER_PROBE_REQUESTS"].flatMap(Int.init) ?? 4_096
    let clients = max(1, environment["SERVER_PROBE_CLIENTS"].flatMap(Int.init) ?? ServerFixture.concurrentClients)
    let configuration = Benchmark.Configuration(metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 0, scalingFactor: .one,
                                                maxDuration: .seconds(600), maxIterations: 1)
    Benchmark("Server probe: \(requests) requests (\(kind)), \(clients) concurrent clients", configuration: configuration) { _ in
        let fixture = try await ServerFixture.shared()
        let perClient = max(1, requests / clients)
        if kind == "read" {
            blackHole(try await fixture.burst("\(fixture.fhirBlocksURL)/fhir/Observation/o1", bearer: fixture.readToken, clients: clients,
                                              perClient: perClient))
        } else {
            blackHole(try await fixture.burst(fixture.helloURL, clients: clients, perClient: perClient))
        }
    }
}
