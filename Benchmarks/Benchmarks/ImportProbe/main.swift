import AppleHealthExport
import Foundation
import OpenHealthKit

// import-probe EXPORT STORE_FOLDER: the import `health import apple-health EXPORT` runs (the same
// importer, batch size and encrypted file store, without argument parsing and the summary), for
// measuring its wall clock and peak memory with /usr/bin/time -v where the release `health`
// binary is not built. Prints the number of records imported.
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: import-probe EXPORT STORE_FOLDER\n".utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: arguments[2], isDirectory: true)
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let store = HKHealthStore(configuration: HKHealthStore.Configuration(
    location: .file(folder.appendingPathComponent("health.sqlite")),
    key: .keyFile(folder.appendingPathComponent("health.key")),
    role: .owner))
try store.open()
let report = try await AppleHealthImporter(batchSize: 10_000).importExport(at: URL(fileURLWithPath: arguments[1]), into: store)
print("imported \(report.importedCount) in \(report.batches) batches")
