import ArgumentParser
import Foundation
import OpenHealthKit

/// `health store deleted`: lists the store's "Recently deleted" samples, and restores them.
struct StoreDeletedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deleted",
        abstract: "List recently deleted samples (kept 30 days), or restore them.",
        discussion: """
            Every deleted sample is kept, encrypted like the rest of the store, in Recently deleted for 30 days. \
            A restored sample comes back as a new sample (a new UUID) with the same value, dates, source and metadata.
            Examples:
              health store deleted
              health store deleted --restore 12 --restore 13
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Restore the items with these IDs (as listed).", valueName: "ID"))
    var restore: [Int64] = []

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    mutating func run() async throws {
        let store = try storeOptions.openStore()
        if !restore.isEmpty {
            // Each ID once, in the order given: the store restores each once, and the answer pairs
            // each ID with its new UUID.
            var seen = Set<Int64>()
            let ids = restore.filter { seen.insert($0).inserted }
            let items = try await store.recentlyDeletedItems()
            let byID = Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for id in ids where byID[id] == nil {
                throw CLIError("Recently deleted has no item \(id): run `health store deleted` to see the IDs")
            }
            let uuids = try await store.restoreRecentlyDeleted(ids)
            if json {
                let objects = zip(ids, uuids).map { ["id": $0.0, "uuid": $0.1.uuidString] as [String: Any] }
                print(try Self.jsonText(objects))
            } else {
                print(uuids.count == 1 ? "Restored 1 sample (a new sample, with a new UUID):"
                      : "Restored \(uuids.count) samples (new samples, with new UUIDs):")
                for (id, uuid) in zip(ids, uuids) {
                    guard let item = byID[id] else { continue }
                    print("  \(id)  \(item.sample.sampleType.displayName)  \(SampleFormatter.valueText(item.sample, unit: nil))  → \(uuid.uuidString)")
                }
            }
            return
        }
        let items = try await store.recentlyDeletedItems()
        if json {
            let objects = items.map { item -> [String: Any] in
                var object = SampleFormatter.jsonObject(item.sample, unit: nil)
                object["id"] = item.id
                object["deletedAt"] = isoDate(item.deletedAt)
                object["expiresAt"] = isoDate(item.expiresAt)
                return object
            }
            print(try Self.jsonText(objects))
            return
        }
        guard !items.isEmpty else {
            print("Recently deleted is empty: nothing was deleted in the last 30 days.")
            return
        }
        var rows = [["ID", "Type", "Value", "Dates", "Deleted"]]
        for item in items {
            let sample = item.sample
            let dates = sample.startDate == sample.endDate ? formatDate(sample.startDate)
                : "\(formatDate(sample.startDate)) – \(formatDate(sample.endDate))"
            rows.append([String(item.id), sample.sampleType.displayName, SampleFormatter.valueText(sample, unit: nil), dates,
                         formatDate(item.deletedAt)])
        }
        for line in Self.aligned(rows) { print(line) }
        print("")
        print("\(items.count) item\(items.count == 1 ? "" : "s"), each kept 30 days after it was deleted. "
              + "Restore with: health store deleted --restore ID")
    }

    /// The rows as lines with every column padded to its widest cell (the last one unpadded).
    static func aligned(_ rows: [[String]]) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    static func jsonText(_ objects: [[String: Any]]) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
