import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

/// The orderings, the iOS 8 anchor and the summary versions a review of the HealthKit API
/// additions questioned.
@Suite("Workout sort keys across sample kinds, the integer anchor past deletions, paused summaries' versions")
struct ReviewedSortAnchorAndSummaryTests {
    private static let bpm = HKUnit.count().unitDivided(by: .minute())
    private static let revision = HKSourceRevision(source: HKSource(name: "Health", bundleIdentifier: "org.example.health"), version: nil)

    private static func heartRate(_ value: Double, at offset: TimeInterval) -> HKQuantitySample {
        let start = Samples.reference.addingTimeInterval(offset)
        return HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: bpm, doubleValue: value), start: start, end: start)
    }

    private static func run(minutes: Double, at offset: TimeInterval) -> HKWorkout {
        let start = Samples.reference.addingTimeInterval(offset)
        return HKWorkout(activityType: .running, start: start, end: start.addingTimeInterval(minutes * 60))
    }

    private static func labels(_ samples: [HKSample]) -> [String] {
        samples.map { sample in
            if let workout = sample as? HKWorkout { return "w\(Int(workout.duration / 60))" }
            return "h\(Int((sample as? HKQuantitySample)?.quantity.doubleValue(for: bpm) ?? -1))"
        }
    }

    private static func query(_ store: HKHealthStore, limit: Int, sort: [NSSortDescriptor]) async throws -> [String] {
        let descriptors = [HKQueryDescriptor(sampleType: HKObjectType.workoutType(), predicate: nil),
                           HKQueryDescriptor(sampleType: HKQuantityType(.heartRate), predicate: nil)]
        return try await withCheckedThrowingContinuation { continuation in
            store.execute(HKSampleQuery(queryDescriptors: descriptors, limit: limit, sortDescriptors: sort) { _, samples, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: labels(samples ?? [])) }
            })
        }
    }

    @Test("Workouts and heart rates in one query sorted by duration: samples without a duration come first ascending and last descending, then by start")
    func mixedKinds() async throws {
        let store = TestStores.memory()
        // Starts interleave the kinds: h60 at 0 min, w30 at 10, h61 at 20, w20 at 30, h62 at 40, w40 at 50.
        try await store.save([Self.heartRate(60, at: 0), Self.run(minutes: 30, at: 600), Self.heartRate(61, at: 1200),
                              Self.run(minutes: 20, at: 1800), Self.heartRate(62, at: 2400), Self.run(minutes: 40, at: 3000)])
        let byStart = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)
        let ascending = try await Self.query(store, limit: HKObjectQueryNoLimit,
                                             sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierDuration, ascending: true), byStart])
        #expect(ascending == ["h60", "h61", "h62", "w20", "w30", "w40"])
        let descending = try await Self.query(store, limit: 4,
                                              sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierDuration, ascending: false), byStart])
        #expect(descending == ["w40", "w30", "w20", "h60"])
        // The same whichever order the kinds are read in: the ordering is total.
        let reversedStart = try await Self.query(store, limit: HKObjectQueryNoLimit,
                                                 sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierDuration, ascending: true),
                                                        NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)])
        #expect(reversedStart == ["h62", "h61", "h60", "w20", "w30", "w40"])
    }

    @Test("The integer anchor counts only added samples towards its limit and reads past deletions older than the kept history")
    func integerAnchorPastDeletions() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let type = HKQuantityType(.heartRate)
        func page(_ anchor: Int, limit: Int) async throws -> (values: [Double], anchor: Int) {
            try await withCheckedThrowingContinuation { continuation in
                store.execute(HKAnchoredObjectQuery(type: type, predicate: nil, anchor: anchor, limit: limit) { _, samples, newAnchor, error in
                    if let error { continuation.resume(throwing: error); return }
                    let values = (samples ?? []).compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: Self.bpm) }
                    continuation.resume(returning: (values, newAnchor))
                })
            }
        }
        let doomed = (0..<10).map { Self.heartRate(100 + Double($0), at: Double($0)) }
        try await store.save(doomed)
        let start = try await page(Int(HKAnchoredObjectQueryNoAnchor), limit: 100)
        #expect(start.values.count == 10)
        // Ten deletions, then five additions: a page of five holds the five added samples.
        try await store.delete(doomed)
        try await store.save((0..<5).map { Self.heartRate(60 + Double($0), at: 100 + Double($0)) })
        let next = try await page(start.anchor, limit: 5)
        #expect(next.values == [60, 61, 62, 63, 64])
        let after = try await page(next.anchor, limit: 5)
        #expect(after.values.isEmpty && after.anchor == next.anchor)
        // Deletion history forgotten (as after the retention): the integer anchor still reads on.
        try await store.engine.databaseAsync().writeAsync { db in
            try db.execute(sql: "INSERT OR REPLACE INTO store_info (key, value) VALUES ('pruned_through', ?)", arguments: [Int64(next.anchor) + 1])
        }
        try await store.save(Self.heartRate(65, at: 200))
        #expect(try await page(next.anchor, limit: 5).values == [65])
    }

    @Test("An unpaused summary's version text is the one stored before paused days were kept; saving it again stores nothing, pausing it replaces it")
    func summaryVersions() async throws {
        let summary = try HKActivitySummary(dateComponents: DateComponents(year: 2024, month: 3, day: 1),
                                            activeEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 400),
                                            activeEnergyBurnedGoal: HKQuantity(unit: .kilocalorie(), doubleValue: 500),
                                            exerciseTimeGoal: HKQuantity(unit: .minute(), doubleValue: 30))
        #expect(try ActivitySummaryDetails(summary).contentText
                    == "ActivitySummaryDetails(year: 2024, month: 3, day: 1, moveMode: 1, activeEnergyKilocalories: 400.0, "
                    + "activeEnergyGoalKilocalories: 500.0, moveMinutes: 0.0, moveGoalMinutes: 0.0, exerciseMinutes: 0.0, "
                    + "exerciseGoalMinutes: Optional(30.0), standHours: 0.0, standHoursGoal: nil)")
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        #expect(try await store.saveActivitySummaries([summary], recordedAs: Self.revision).storedCount == 1)
        #expect(try await store.saveActivitySummaries([summary], recordedAs: Self.revision).alreadyStoredCount == 1)
        summary.isPaused = true
        #expect(try ActivitySummaryDetails(summary).contentText.hasSuffix("standHoursGoal: nil) paused"))
        #expect(try await store.saveActivitySummaries([summary], recordedAs: Self.revision).replacedCount == 1)
        let read = try await HKActivitySummaryQueryDescriptor(predicate: nil).result(for: store)
        #expect(read.map(\.isPaused) == [true])
        #expect(try await store.saveActivitySummaries([summary], recordedAs: Self.revision).alreadyStoredCount == 1)
    }
}
