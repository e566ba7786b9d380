import Benchmark
import FHIRCore
import FhirBlocks
import Foundation
import SmartHealthCards

// The parsers an unauthenticated caller reaches, fed the adversarial shapes that once made them
// quadratic (issue 14), at 64 KiB and at 1 MiB: a linear parser takes about 16× as long for the
// larger input; the goal is at most 20×. `scripts/bench.sh parsing` prints each 1 MiB / 64 KiB ratio.
//
// - a form body of many fields (`FormBody.parse`, `/vaca/auth` and the token endpoint);
// - a scope string of many scopes, repeated and malformed (`ScopeRequest`);
// - a card payload object of many members with escaped names (`SHCLimits.parseJSON`: FHIRCore's tape under
//   the cards' rules, then the `JSONValue` tree);
// - a FHIR JSON object of many members with escaped names (FHIRCore's `JSONTape`).

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 1,
                                           maxDuration: .seconds(5), maxIterations: 200)
    // `scripts/bench.sh --check` allows each figure a 25 % fall of its median from the stored baseline.
    let measured: [BenchmarkMetric] = [.wallClock]
    Benchmark.defaultConfiguration.thresholds = Dictionary(uniqueKeysWithValues: measured.map { ($0, BenchmarkThresholds(relative: [.p50: 25.0])) })
    for size in [64 * 1024, 1024 * 1024] {
        let label = size == 64 * 1024 ? "64 KiB" : "1 MiB"
        Benchmark("Form body of many fields, \(label)") { benchmark, body in
            for _ in benchmark.scaledIterations { blackHole(try FormBody.parse(body, mode: .compat)) }
        } setup: {
            Inputs.repeated(size) { "f\($0)=v" }.joined(separator: "&").utf8.map { $0 }
        }
        Benchmark("Scope string of many scopes, \(label)") { benchmark, text in
            for _ in benchmark.scaledIterations { blackHole(ScopeRequest(text)) }
        } setup: {
            Inputs.repeated(size) { ["patient/Observation.read", "user/Condition.rs", "conf/R", "conf/X", "patient/Obs\($0).read"][$0 % 5] }
                .joined(separator: " ")
        }
        Benchmark("Card JSON object of many escaped names, \(label)") { benchmark, bytes in
            for _ in benchmark.scaledIterations { blackHole(try SHCLimits.default.parseJSON(bytes)) }
        } setup: {
            Inputs.object(size)
        }
        Benchmark("FHIR JSON object of many escaped names, \(label)") { benchmark, bytes in
            for _ in benchmark.scaledIterations { blackHole(try JSONTape(bytes)) }
        } setup: {
            Inputs.object(size)
        }
    }
}

enum Inputs {
    /// Items made by `item` until their joined length reaches `size` bytes.
    static func repeated(_ size: Int, _ item: (Int) -> String) -> [String] {
        var items: [String] = []
        var length = 0
        while length < size {
            let next = item(items.count)
            length += next.utf8.count + 1
            items.append(next)
        }
        return items
    }

    /// `{"\u006b0":0,"\u006b1":1,…}` of `size` bytes: every name escaped, none repeated.
    static func object(_ size: Int) -> [UInt8] {
        Array(("{" + repeated(size - 2) { "\"\\u006b\($0)\":\($0)" }.joined(separator: ",") + "}").utf8)
    }
}
