import ArgumentParser
import Foundation
import OpenHealthKit

/// `health store sources`: the apps and devices that saved samples.
struct StoreSourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources",
        abstract: "List the sources that saved samples (of one type, or of every type with samples).")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Only sources of this type.")
    var type: String?

    @Flag(help: "Print JSON.")
    var json = false

    mutating func run() async throws {
        let store = try storeOptions.openStore()
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
}
