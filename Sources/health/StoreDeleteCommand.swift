import ArgumentParser
import Foundation
import OpenHealthKit

/// `health store delete`: deletes samples by UUID, or a type's samples in a date range.
struct StoreDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete samples by UUID, or all samples of a type in a date range.",
        discussion: """
            Deleted samples are remembered as deletions, so apps syncing with anchored queries learn about them.
            Examples:
              health store delete --uuid 6F1C…
              health store delete --type stepCount --from 2026-11-01 --to 2026-11-02
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "A sample UUID (repeatable).")
    var uuid: [String] = []

    @Option(help: "Delete samples of this type (with --from/--to, or --all).")
    var type: String?

    @Option(help: "Samples ending at or after this date.")
    var from: String?

    @Option(help: "Samples starting before this date.")
    var to: String?

    @Flag(help: "With --type and no dates: delete every sample of the type.")
    var all = false

    mutating func validate() throws {
        if uuid.isEmpty == (type == nil) {
            throw ValidationError("give either --uuid or --type")
        }
        if type != nil, from == nil, to == nil, !all {
            throw ValidationError("--type needs --from/--to, or --all to delete every sample of the type")
        }
    }

    mutating func run() async throws {
        let store = try storeOptions.openStore()
        if let type {
            let sampleType = try parseSampleType(type)
            let predicate = try HKQuery.predicateForSamples(withStart: from.map(parseDate), end: to.map(parseDate))
            let count = try await store.deleteObjects(of: sampleType, predicate: predicate)
            print("Deleted \(count) \(sampleType.displayName) sample\(count == 1 ? "" : "s").")
            return
        }
        var uuids: [UUID] = []
        for text in uuid {
            guard let value = UUID(uuidString: text) else { throw ValidationError("invalid UUID '\(text)'") }
            uuids.append(value)
        }
        let total = try await store.deleteObjects(withUUIDs: Set(uuids))
        guard total == Set(uuids).count else {
            throw CLIError("deleted \(total) of \(uuids.count): the other UUIDs are not in the store")
        }
        print("Deleted \(total) sample\(total == 1 ? "" : "s").")
    }
}

/// A runtime failure with a message for the person at the terminal.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
