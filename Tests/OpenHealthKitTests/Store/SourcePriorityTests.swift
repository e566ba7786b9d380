import Foundation
import Testing

@testable import OpenHealthKit
import TestSupport

/// The owner's source order in the store, and statistics that follow it.
struct SourcePriorityTests {
    private let steps = HKQuantityType(.stepCount)

    /// A phone and a watch both counting the same walk (1,000 steps, 10:00–11:00); the watch
    /// also counts a run the phone missed (2,000 steps, 11:00–11:30).
    private func twoDevices(_ folder: TemporaryFolder) async throws {
        let phone = TestStores.app(folder, bundle: "com.example.phone", name: "Phone")
        let watch = TestStores.app(folder, bundle: "com.example.watch", name: "Watch")
        for app in [phone, watch] {
            try await app.requestAuthorization(toShare: [steps], read: [steps])
        }
        try await phone.save(Samples.steps(1_000, at: 36_000, minutes: 60))
        try await watch.save([Samples.steps(1_000, at: 36_000, minutes: 60), Samples.steps(2_000, at: 39_600, minutes: 30)])
    }

    @Test func stepsFromAPhoneAndAWatchAreNotCountedTwice() async throws {
        let folder = TemporaryFolder()
        try await twoDevices(folder)
        let owner = TestStores.owner(folder)
        let merged = try await owner.runStatisticsQuery(steps, options: [.cumulativeSum, .separateBySource])
        #expect(merged.sumQuantity()?.doubleValue(for: .count()) == 3_000)
        // Each source's own figures, and both listed as sources.
        let phone = try #require(merged.sources?.first { $0.bundleIdentifier == "com.example.phone" })
        let watch = try #require(merged.sources?.first { $0.bundleIdentifier == "com.example.watch" })
        #expect(merged.sumQuantity(for: phone)?.doubleValue(for: .count()) == 1_000)
        #expect(merged.sumQuantity(for: watch)?.doubleValue(for: .count()) == 3_000)
    }

    @Test func theOwnersOrderDecidesWhereSourcesDisagree() async throws {
        let folder = TemporaryFolder()
        let phone = TestStores.app(folder, bundle: "com.example.phone", name: "Phone")
        let watch = TestStores.app(folder, bundle: "com.example.watch", name: "Watch")
        for app in [phone, watch] {
            try await app.requestAuthorization(toShare: [steps], read: [steps])
        }
        try await phone.save(Samples.steps(1_200, at: 0, minutes: 60))
        try await watch.save(Samples.steps(900, at: 0, minutes: 60))
        let owner = TestStores.owner(folder)
        // By default the first source to save ranks first among apps.
        #expect(try owner.sourcePriority(for: steps).map(\.bundleIdentifier) == ["com.example.phone", "com.example.watch"])
        #expect(try await owner.runStatisticsQuery(steps, options: .cumulativeSum).sumQuantity()?.doubleValue(for: .count()) == 1_200)

        try owner.setSourcePriority([HKSource(name: "Watch", bundleIdentifier: "com.example.watch")], for: steps)
        #expect(try owner.sourcePriority(for: steps).map(\.bundleIdentifier) == ["com.example.watch", "com.example.phone"])
        #expect(try await owner.runStatisticsQuery(steps, options: .cumulativeSum).sumQuantity()?.doubleValue(for: .count()) == 900)
        // An app reading the same statistics sees the same merge.
        #expect(try await phone.runStatisticsQuery(steps, options: .cumulativeSum).sumQuantity()?.doubleValue(for: .count()) == 900)

        try owner.setSourcePriority([], for: steps)
        #expect(try await owner.runStatisticsQuery(steps, options: .cumulativeSum).sumQuantity()?.doubleValue(for: .count()) == 1_200)
    }

    @Test func onlyTheOwnerOrdersSources() async throws {
        let folder = TemporaryFolder()
        try await twoDevices(folder)
        let phone = TestStores.app(folder, bundle: "com.example.phone")
        #expect(throws: HKError.self) { try phone.setSourcePriority([], for: steps) }
        #expect(throws: HKError.self) { try phone.sourcePriority(for: steps) }
    }

    @Test func devicesRankBeforeAppsAndAWatchBeforeAPhoneByDefault() {
        let order = SourcePriorityDefault.order(
            listed: ["org.app.b"],
            firstSeen: ["org.app.a", "org.app.b", "com.apple.phone", "com.apple.watch", "org.scale"],
            productTypes: ["org.app.a": [nil], "org.app.b": [nil], "com.apple.phone": ["iPhone15,2"],
                           "com.apple.watch": ["Watch6,1"], "org.scale": ["Scale1,1"]])
        #expect(order == ["org.app.b", "com.apple.watch", "com.apple.phone", "org.scale", "org.app.a"])
    }
}
