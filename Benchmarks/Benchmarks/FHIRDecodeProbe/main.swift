import FHIRCore
import Foundation
import struct ModelsR4.Bundle

// fhir-decode-probe FILE ITERATIONS [WARMUP]: decodes the FHIR R4 JSON Bundle in FILE to
// `ModelsR4.Bundle` (the same call as FHIRBenchmarks' "Decode … (ModelsR4)": FHIRCore's parser,
// then the generated models, strict about unknown members) WARMUP times untimed (2 unless given),
// then ITERATIONS times, and prints each timed decode's seconds, one per line. Each timed decode
// includes freeing the decoded bundle, as the benchmark's loop and Python's timing do; reading
// the file is not timed. scripts/bench-fhir-paired.py runs it in short batches, alternating with
// Python's fhir.resources on the same bytes, so that both sides are measured in the same seconds
// of a noisy host.
let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4, let iterations = Int(arguments[2]), iterations > 0,
      let warmup = arguments.count == 4 ? Int(arguments[3]) : 2, warmup >= 0 else {
    FileHandle.standardError.write(Data("usage: fhir-decode-probe FILE ITERATIONS [WARMUP]\n".utf8))
    exit(2)
}
let bytes: [UInt8]
do {
    bytes = Array(try Data(contentsOf: URL(fileURLWithPath: arguments[1])))
} catch {
    FileHandle.standardError.write(Data("fhir-decode-probe: cannot read \(arguments[1]): \(error)\n".utf8))
    exit(1)
}
do {
    for _ in 0..<warmup { _ = try Bundle(fhirJSON: bytes) }
    let clock = ContinuousClock()
    var seconds: [Double] = []
    seconds.reserveCapacity(iterations)
    var entries = 0
    for _ in 0..<iterations {
        let started = clock.now
        // The bundle is freed at the end of this statement, inside the timed region.
        entries &+= try Bundle(fhirJSON: bytes).entry?.count ?? 0
        let elapsed = started.duration(to: clock.now)
        seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    guard entries > 0 else {
        FileHandle.standardError.write(Data("fhir-decode-probe: \(arguments[1]) has no entries\n".utf8))
        exit(1)
    }
    print(seconds.map { String(format: "%.9f", $0) }.joined(separator: "\n"))
} catch {
    FileHandle.standardError.write(Data("fhir-decode-probe: \(arguments[1]) does not decode: \(error)\n".utf8))
    exit(1)
}
