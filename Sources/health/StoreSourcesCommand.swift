import ArgumentParser
import Foundation
import OpenHealthKit

/// `health store sources`: the apps and devices that saved samples.
struct StoreSourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources",
        abstract: "List the sources that saved samples (of one type, or of every type with samples), or order a type's sources.",
        discussion: """
            With --type of a quantity type, sources are listed in the order statistics merge them: where \
            several sources cover the same time (a phone and a watch counting the same steps), only the \
            first one's samples count. --priority SRC… sets that order (a bundle identifier or a name \
            each; sources not named follow in the default order: watch, phone, other devices, apps); \
            --default-priority goes back to the default order.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Only sources of this type.")
    var type: String?

    @Option(parsing: .upToNextOption, help: "With --type: the sources of that quantity type, highest priority first.")
    var priority: [String] = []

    @Flag(help: "With --type: forget the order set with --priority.")
    var defaultPriority = false

    @Flag(help: "Print JSON.")
    var json = false

    mutating func validate() throws {
        if !priority.isEmpty || defaultPriority {
            guard type != nil else { throw ValidationError("--priority and --default-priority need --type") }
            guard priority.isEmpty || !defaultPriority else {
                throw ValidationError("--priority and --default-priority cannot be used together")
            }
        }
    }

    mutating func run() async throws {
        let store = try storeOptions.openStore()
        if let type, let quantityType = try parseSampleType(type) as? HKQuantityType {
            try await listPriority(store: store, type: quantityType)
            return
        } else if !priority.isEmpty || defaultPriority {
            throw ValidationError("source priority applies to quantity types; \(type ?? "") is not one")
        }
        let types = try type.map { [try parseSampleType($0)] } ?? HKObjectType.allSampleTypes
        var rows: [(type: HKSampleType, sources: [HKSource])] = []
        for sampleType in types {
            let sources = try await HKSourceQueryDescriptor(predicate: .sample(type: sampleType)).result(for: store)
            if !sources.isEmpty || type != nil { rows.append((sampleType, sources)) }
        }
        if json {
            let document = rows.map { row -> [String: Any] in
                ["type": row.type.identifier,
                 "sources": row.sources.map { ["name": $0.name, "bundleIdentifier": $0.bundleIdentifier] }]
            }
            print(String(decoding: try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys]),
                         as: UTF8.self))
            return
        }
        if rows.isEmpty { print("No samples in the store.") }
        for row in rows {
            print(row.type.displayName)
            if row.sources.isEmpty { print("  (none)") }
            for source in row.sources { print("  \(source.name) (\(source.bundleIdentifier))") }
        }
    }

    /// Sets the order when asked, then lists the type's sources in merge order.
    private func listPriority(store: HKHealthStore, type: HKQuantityType) async throws {
        let withSamples = Set(try await HKSourceQueryDescriptor(predicate: .sample(type: type)).result(for: store))
        if defaultPriority {
            try store.setSourcePriority([], for: type)
        } else if !priority.isEmpty {
            let known = try store.sourcePriority(for: type)
            var chosen: [HKSource] = []
            for name in priority {
                guard let source = known.first(where: { $0.bundleIdentifier == name }) ?? known.first(where: { $0.name == name }) else {
                    throw ValidationError("no source '\(name)' in the store (see health store sources --type \(type.identifier))")
                }
                chosen.append(source)
            }
            try store.setSourcePriority(chosen, for: type)
        }
        let order = try store.sourcePriority(for: type).filter { withSamples.contains($0) }
        if json {
            let document: [String: Any] = [
                "type": type.identifier,
                "sources": order.map { ["name": $0.name, "bundleIdentifier": $0.bundleIdentifier] },
            ]
            print(String(decoding: try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys]),
                         as: UTF8.self))
            return
        }
        print("\(type.displayName) (highest priority first)")
        if order.isEmpty { print("  (none)") }
        for (position, source) in order.enumerated() {
            print("  \(position + 1). \(source.name) (\(source.bundleIdentifier))")
        }
    }
}
