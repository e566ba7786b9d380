import AppleHealthExport
import Foundation
import ImportSupport
import OpenHealthKit

// import-probe EXPORT STORE_FOLDER: the import `health import apple-health EXPORT` runs (the same
// importer, batch size and encrypted file store, without argument parsing and the summary), for
// measuring its wall clock and peak memory with /usr/bin/time -v where the release `health`
// binary is not built. Prints the number of records imported.
//
// import-probe save COUNT STORE_FOLDER: the ceiling of the person's path, the store's own bulk
// save (`save(_:recordedAs:)`, batches of 10,000) of the samples the import of the generated
// COUNT-record export stores, into a new encrypted file store. The samples are built before the
// clock starts; prints the seconds the saves took and their rate.
let arguments = CommandLine.arguments
func store(in path: String) throws -> HKHealthStore {
    let folder = URL(fileURLWithPath: path, isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let store = HKHealthStore(configuration: HKHealthStore.Configuration(
        location: .file(folder.appendingPathComponent("health.sqlite")),
        key: .keyFile(folder.appendingPathComponent("health.key")),
        role: .owner))
    try store.open()
    return store
}

/// The outcome of work run in a task, read by the main thread that waited for it.
final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<String, any Error> = .success("")
    func set(_ value: Result<String, any Error>) { lock.withLock { result = value } }
    var value: Result<String, any Error> { lock.withLock { result } }
}

/// Runs `body` in a task while the main thread waits: the probe has no asynchronous top level,
/// so that it runs under valgrind (whose callgrind counts instructions whatever the machine's
/// load), which stops in libdispatch's main-queue wait an asynchronous `main` needs.
func runWaiting(_ body: @escaping @Sendable () async throws -> String) -> Result<String, any Error> {
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { outcome.set(.success(try await body())) } catch { outcome.set(.failure(error)) }
        done.signal()
    }
    done.wait()
    return outcome.value
}

let result: Result<String, any Error>
if arguments.count == 4, arguments[1] == "save", let count = Int(arguments[2]), count > 0 {
    let folder = arguments[3]
    result = runWaiting {
        let batches = StoreSide.sampleBatches(count: count)
        let store = try store(in: folder)
        let clock = ContinuousClock()
        let started = clock.now
        for batch in batches {
            try await store.save(batch.samples, recordedAs: batch.revisions)
        }
        let elapsed = started.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return String(format: "saved %d in %.1f s (%.0f/s)", count, seconds, Double(count) / seconds)
    }
} else if arguments.count == 3 {
    let (export, folder) = (arguments[1], arguments[2])
    result = runWaiting {
        let store = try store(in: folder)
        let report = try await AppleHealthImporter(batchSize: 10_000).importExport(at: URL(fileURLWithPath: export), into: store)
        return "imported \(report.importedCount) in \(report.batches) batches, already stored \(report.alreadyStoredCount)"
    }
} else {
    FileHandle.standardError.write(Data("usage: import-probe EXPORT STORE_FOLDER | import-probe save COUNT STORE_FOLDER\n".utf8))
    exit(2)
}
switch result {
case .success(let line):
    print(line)
case .failure(let error):
    FileHandle.standardError.write(Data("import-probe: \(error)\n".utf8))
    exit(1)
}
