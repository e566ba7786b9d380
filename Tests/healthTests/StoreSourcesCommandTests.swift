import Foundation
import OpenHealthKit
import Testing

@Suite("health store sources: listing and ordering sources")
struct StoreSourcesCommandTests {
    /// A phone and a watch saving into the runner's store: the phone 1,200 steps, the watch 900,
    /// over the same hour of 2026-11-20.
    private func twoDevices(_ runner: CommandRunner) async throws {
        let database = URL(fileURLWithPath: runner.store)
        let key = database.deletingLastPathComponent().appendingPathComponent("health.key")
        let start = try #require(ISO8601DateFormatter().date(from: "2026-11-20T10:00:00Z"))
        for (name, bundle, count) in [("Phone", "com.example.phone", 1_200.0), ("Watch", "com.example.watch", 900)] {
            let store = HKHealthStore(configuration: .init(location: .file(database), key: .keyFile(key),
                                                           source: HKSource(name: name, bundleIdentifier: bundle), role: .owner))
            try await store.save(HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: count),
                                                  start: start, end: start.addingTimeInterval(3600)))
        }
    }

    private func dayTotal(_ runner: CommandRunner) async throws -> Double? {
        let json = try await runner.run(["store", "stats", "--type", "stepCount", "--from", "2026-11-20", "--to", "2026-11-21", "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let intervals = try #require(document["intervals"] as? [[String: Any]])
        return intervals.first?["value"] as? Double
    }

    @Test("--priority orders a type's sources and the merged statistics follow it")
    func priority() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        try await twoDevices(runner)
        let listed = try await runner.run(["store", "sources", "--type", "stepCount"])
        #expect(listed.status == 0, "\(listed.error)")
        #expect(listed.output.contains("1. Phone (com.example.phone)") && listed.output.contains("2. Watch (com.example.watch)"))
        #expect(try await dayTotal(runner) == 1_200)

        let ordered = try await runner.run(["store", "sources", "--type", "stepCount", "--priority", "Watch", "com.example.phone"])
        #expect(ordered.status == 0, "\(ordered.error)")
        #expect(ordered.output.contains("1. Watch (com.example.watch)") && ordered.output.contains("2. Phone (com.example.phone)"))
        #expect(try await dayTotal(runner) == 900)

        let json = try await runner.run(["store", "sources", "--type", "stepCount", "--default-priority", "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let sources = try #require(document["sources"] as? [[String: Any]])
        #expect(sources.compactMap { $0["bundleIdentifier"] as? String } == ["com.example.phone", "com.example.watch"])
        #expect(try await dayTotal(runner) == 1_200)
    }

    @Test("Unknown sources, a missing --type and a non-quantity type are usage errors", arguments: [
        (["store", "sources", "--type", "stepCount", "--priority", "Nobody"], "no source 'Nobody'"),
        (["store", "sources", "--priority", "Watch"], "need --type"),
        (["store", "sources", "--type", "sleepAnalysis", "--priority", "Watch"], "quantity types"),
    ])
    func refusals(arguments: [String], message: String) async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        try await twoDevices(runner)
        let result = try await runner.run(arguments)
        #expect(result.status == 2)
        #expect(result.error.contains(message), "\(result.error)")
    }
}
