import Benchmark
import FhirBlocksServer
import FhirBlocksStore

// `Patient/{id}/$everything` paged in the store (issue 15), over the search fixture (one
// compartment of 100,000 Observations, ids o0 to o99999, so in (type, id) byte order o0, o1,
// o10, o100, …), beside its protected read by id in the same run ("FHIR search fixture:
// protected read by id among 100,000 Observations", `GET /fhir/Observation/o12345`):
//
// - First page: `GET /fhir/Patient/{id}/$everything?_count=50`;
// - Late page: `GET /fhir/Patient/{id}/$everything?_count=50&_cursor=Observation/o99` (the page
//   after the 98,890th resource of the compartment in that order).
//
// Each page reads 51 rows through the index from its cursor on, checks scope and labels, and
// audits its 50 resources. Before, every page read the whole compartment from the store (in
// order) and sorted it: the reference row measures that read alone, in process, no HTTP.
let everythingBenchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .throughput], timeUnits: .microseconds, warmupIterations: 10,
                                                maxDuration: .seconds(10), maxIterations: 1_000)
    let pages = [("$everything: first page of 50 of a 100,000-resource compartment", "_count=50"),
                 ("$everything: a late page of 50 (after 98,890 of 100,000 resources)", "_count=50&_cursor=Observation%2Fo99")]
    Benchmark("$everything reference: the whole 100,000-resource compartment read from the store, as each page did before",
              configuration: .init(metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 10)) {
        benchmark in
        let fixture = try await SearchFixture.shared()
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.store.resources(patient: fixture.server.app.csi, type: nil).count)
        }
    }
    for (name, query) in pages {
        Benchmark(name, configuration: configuration) { benchmark in
            let fixture = try await SearchFixture.shared()
            let url = "\(fixture.server.fhirBlocksURL)/fhir/Patient/\(fixture.server.app.csi.rawValue)/$everything?\(query)"
            // A page, not an error, is measured.
            let status = try await fixture.server.get(url, bearer: fixture.token)
            guard status == 200 else { throw FixtureError("$everything answered \(status)") }
            for _ in benchmark.scaledIterations {
                blackHole(try await fixture.server.get(url, bearer: fixture.token))
            }
        }
    }
}
