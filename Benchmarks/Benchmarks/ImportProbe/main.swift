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

if arguments.count == 4, arguments[1] == "save", let count = Int(arguments[2]), count > 0 {
    let batches = StoreSide.sampleBatches(count: count)
    let store = try store(in: arguments[3])
    let clock = ContinuousClock()
    let started = clock.now
    for batch in batches {
        try await store.save(batch.samples, recordedAs: batch.revisions)
    }
    let elapsed = started.duration(to: clock.now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(String(format: "saved %d in %.1f s (%.0f/s)", count, seconds, Double(count) / seconds))
} else if arguments.count == 3 {
    let store = try store(in: arguments[2])
    let report = try await AppleHealthImporter(batchSize: 10_000).importExport(at: URL(fileURLWithPath: arguments[1]), into: store)
    print("imported \(report.importedCount) in \(report.batches) batches")
} else {
    FileHandle.standardError.write(Data("usage: import-probe EXPORT STORE_FOLDER | import-probe save COUNT STORE_FOLDER\n".utf8))
    exit(2)
}
