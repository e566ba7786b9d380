import ArgumentParser
import Foundation
import OpenHealthKit

/// `health store delete`: deletes samples by UUID, or a type's samples in a date range.
struct StoreDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete samples by UUID, or all samples of a type in a date range.",
        discussion: """
            Deleted samples are remembered as deletions, so apps syncing with anchored queries learn about them, \
            and are kept in Recently deleted for 30 days: `health store deleted` lists them and restores them.
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
            // The newest items of the list are this delete's (listed newest first); a long list is not read.
            let kept = count > Self.idsShown ? []
                : try await store.recentlyDeletedItems().prefix(count).filter { $0.sample.sampleType == sampleType }
            Self.printUndo(kept.map(\.id), count: count)
            return
        }
        var uuids: [UUID] = []
        for text in uuid {
            guard let value = UUID(uuidString: text) else { throw ValidationError("invalid UUID '\(text)'") }
            uuids.append(value)
        }
        let total = try await store.deleteObjects(withUUIDs: Set(uuids))
        guard total == Set(uuids).count else {
            throw CLIError("deleted \(total) of \(uuids.count) (kept in Recently deleted: health store deleted); the other UUIDs are not in the store")
        }
        print("Deleted \(total) sample\(total == 1 ? "" : "s").")
        let kept = total > Self.idsShown ? [] : try await store.recentlyDeletedItems().filter { uuids.contains($0.sample.uuid) }
        Self.printUndo(kept.map(\.id), count: total)
    }

    /// Up to how many deleted samples the message names by ID.
    static let idsShown = 20

    /// Says where deleted samples went and how to bring them back.
    static func printUndo(_ ids: [Int64], count: Int) {
        guard count > 0 else { return }
        let them = count == 1 ? "it" : "them"
        print("Moved to Recently deleted, where \(count == 1 ? "it is" : "they are") kept for 30 days.")
        if !ids.isEmpty, ids.count == count, count <= idsShown {
            print("To restore \(them): health store deleted --restore \(ids.sorted().map(String.init).joined(separator: " "))")
        } else {
            print("To see \(them): health store deleted; to restore: health store deleted --restore ID…")
        }
    }
}

/// A runtime failure with a message for the person at the terminal.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
