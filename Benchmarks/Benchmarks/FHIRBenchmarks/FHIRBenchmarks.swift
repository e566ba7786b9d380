import Benchmark
import FHIRCore
import Foundation
import struct ModelsR4.Bundle

// FHIR R4 JSON decoding and encoding against Foundation's JSONSerialization on the same bytes, in
// one run on one machine:
//
// - Decode: bytes → `ModelsR4.Bundle` (FHIRCore's JSON parser, then the generated model code, with
//   strict checking of unknown members). The floor is `JSONSerialization.jsonObject(with:)` of the
//   same bytes, which only builds untyped Foundation containers (and loses decimal text).
// - Encode: `Bundle` → compact JSON bytes. The floor is `JSONSerialization.data(withJSONObject:)`
//   of the untyped tree decoded from the same bytes.
// - The JSON parser alone (bytes → `JSONValue`) is shown too, for the split of the decode time.
//
// Two documents: a 50-entry bundle (the first 50 entries of a Synthea patient bundle, with its
// references intact inside those entries) and the largest Synthea bundle. Both come from the
// shared examples (never copied into this repository), found through FHIRFixtures.
// Not timed: reading files, building the 50-entry document, and checking once that every side
// decodes the same number of entries.

let megabytesPerSecond = BenchmarkMetric.custom("Throughput (MB/s)", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    // `scripts/bench.sh --check` allows each figure a 25 % fall of its median from the stored baseline.
    let measured: [BenchmarkMetric] = [.wallClock, megabytesPerSecond]
    Benchmark.defaultConfiguration.thresholds = Dictionary(uniqueKeysWithValues: measured.map { ($0, BenchmarkThresholds(relative: [.p50: 25.0])) })
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, megabytesPerSecond],
        timeUnits: .microseconds,
        units: [megabytesPerSecond: .count],
        warmupIterations: 3,
        maxDuration: .seconds(10),
        maxIterations: 400
    )

    for document in FHIRFixtures.documents {
        let name = document.name

        Benchmark("Decode \(name) (ModelsR4)", configuration: configuration) { benchmark in
            let clock = ContinuousClock()
            let started = clock.now
            for _ in benchmark.scaledIterations {
                let bundle = try Bundle(fhirJSON: document.bytes)
                blackHole(bundle)
            }
            benchmark.measurement(megabytesPerSecond, document.rate(benchmark.scaledIterations.count, started.duration(to: clock.now)))
        }

        Benchmark("Decode \(name) (FHIRCore JSONParser only)", configuration: configuration) { benchmark in
            let clock = ContinuousClock()
            let started = clock.now
            for _ in benchmark.scaledIterations {
                blackHole(try JSONParser.parse(document.bytes))
            }
            benchmark.measurement(megabytesPerSecond, document.rate(benchmark.scaledIterations.count, started.duration(to: clock.now)))
        }

        Benchmark("Decode \(name) (floor: JSONSerialization)", configuration: configuration) { benchmark in
            let clock = ContinuousClock()
            let started = clock.now
            for _ in benchmark.scaledIterations {
                blackHole(try JSONSerialization.jsonObject(with: document.data))
            }
            benchmark.measurement(megabytesPerSecond, document.rate(benchmark.scaledIterations.count, started.duration(to: clock.now)))
        }

        Benchmark("Encode \(name) (ModelsR4)", configuration: configuration) { benchmark in
            let clock = ContinuousClock()
            let started = clock.now
            for _ in benchmark.scaledIterations {
                blackHole(document.bundle.fhirJSONBytes())
            }
            benchmark.measurement(megabytesPerSecond, document.rate(benchmark.scaledIterations.count, started.duration(to: clock.now)))
        }

        Benchmark("Encode \(name) (floor: JSONSerialization)", configuration: configuration) { benchmark in
            let clock = ContinuousClock()
            let started = clock.now
            for _ in benchmark.scaledIterations {
                blackHole(try JSONSerialization.data(withJSONObject: document.foundationTree))
            }
            benchmark.measurement(megabytesPerSecond, document.rate(benchmark.scaledIterations.count, started.duration(to: clock.now)))
        }
    }
}
