import Foundation
import Testing
import TestSupport
@testable import OpenHealthKit

/// The Swift-concurrency descriptors added for iOS 15.4 code: activity summaries (one read and
/// the long-running sequence), workout routes (one-shot sequence of locations), and the
/// long-running sequences ending when the consuming task is cancelled.
@Suite("Query descriptors' result(for:) and results(for:)", .timeLimit(.minutes(10)))
struct QueryDescriptorSequenceTests {
    private static let revision = HKSourceRevision(source: HKSource(name: "Health", bundleIdentifier: "org.example.health"), version: nil)

    private static func summary(_ day: Int, energy: Double) throws -> HKActivitySummary {
        try HKActivitySummary(dateComponents: DateComponents(year: 2024, month: 3, day: day),
                              activeEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: energy),
                              activeEnergyBurnedGoal: HKQuantity(unit: .kilocalorie(), doubleValue: 500),
                              appleExerciseTime: HKQuantity(unit: .minute(), doubleValue: 31),
                              exerciseTimeGoal: HKQuantity(unit: .minute(), doubleValue: 30),
                              appleStandHours: HKQuantity(unit: .count(), doubleValue: 11))
    }

    private static func energies(_ summaries: [HKActivitySummary]) -> [Double] {
        summaries.map { $0.activeEnergyBurned.doubleValue(for: .kilocalorie()) }
    }

    @Test("HKActivitySummaryQueryDescriptor: result(for:) in day order; results(for:) delivers all, then only what is saved after")
    func activitySummaries() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.saveActivitySummaries([try Self.summary(2, energy: 420), try Self.summary(1, energy: 400)], recordedAs: Self.revision)
        #expect(Self.energies(try await HKActivitySummaryQueryDescriptor(predicate: nil).result(for: store)) == [400, 420])
        let one = HKQuery.predicateForActivitySummary(with: DateComponents(year: 2024, month: 3, day: 2))
        #expect(Self.energies(try await HKActivitySummaryQueryDescriptor(predicate: one).result(for: store)) == [420])

        var iterator = HKActivitySummaryQueryDescriptor(predicate: nil).results(for: store).makeAsyncIterator()
        #expect(Self.energies(try #require(try await iterator.next())) == [400, 420])
        // A new day, then a day saved again: each delivery holds only what changed.
        try await store.saveActivitySummaries([try Self.summary(3, energy: 300)], recordedAs: Self.revision)
        #expect(Self.energies(try #require(try await iterator.next())) == [300])
        try await store.saveActivitySummaries([try Self.summary(1, energy: 450)], recordedAs: Self.revision)
        #expect(Self.energies(try #require(try await iterator.next())) == [450])
    }

    @Test("A long-running results(for:) delivers new saves and ends when the consuming task is cancelled")
    func cancellationEndsSequences() async throws {
        let store = TestStores.memory()
        let inbox = Inbox<Int>()
        let anchored = Task {
            var count = 0
            for try await result in HKAnchoredObjectQueryDescriptor(predicates: [.stateOfMind()], anchor: nil).results(for: store) {
                count += result.addedSamples.count
                inbox.append(result.addedSamples.count)
            }
            return count
        }
        _ = await inbox.wait(for: 1)
        try await store.save(HKStateOfMind(date: Samples.reference, kind: .dailyMood, valence: 0.3, labels: [.calm], associations: []))
        #expect(await inbox.wait(for: 2)[1] == 1)
        anchored.cancel()
        // The loop ends (the sequence finishes) instead of waiting for a save that never comes.
        #expect(try await anchored.value == 1)

        let summaries = Inbox<Int>()
        let owner = TestStores.memory()
        let summaryTask = Task {
            for try await delivery in HKActivitySummaryQueryDescriptor(predicate: nil).results(for: owner) {
                summaries.append(delivery.count)
            }
            return true
        }
        #expect(await summaries.wait(for: 1) == [0])
        try await owner.saveActivitySummaries([try Self.summary(5, energy: 100)], recordedAs: Self.revision)
        #expect(await summaries.wait(for: 2) == [0, 1])
        summaryTask.cancel()
        #expect(try await summaryTask.value)

        let collections = Inbox<Int>()
        let statisticsTask = Task {
            let descriptor = HKStatisticsCollectionQueryDescriptor(predicate: .quantitySample(type: HKQuantityType(.stepCount)),
                                                                   options: .cumulativeSum, anchorDate: Samples.reference,
                                                                   intervalComponents: DateComponents(day: 1))
            for try await _ in descriptor.results(for: store) { collections.append(1) }
            return true
        }
        _ = await collections.wait(for: 1)
        statisticsTask.cancel()
        #expect(try await statisticsTask.value)
    }

    @Test("HKWorkoutRouteQueryDescriptor yields every location of a route in time order, then ends")
    func workoutRoute() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let workout = HKWorkoutRouteQueryTests.workout()
        try await store.save(workout)
        let expected = HKWorkoutRouteQueryTests.locations(2_100)
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData(expected.reversed())
        let route = try await builder.finishRoute(with: workout, metadata: nil)

        var timestamps: [Date] = []
        for try await location in HKWorkoutRouteQueryDescriptor(route).results(for: store) {
            timestamps.append(location.timestamp)
        }
        #expect(timestamps == expected.map(\.timestamp))

        // A deleted route ends the sequence as the callback query reports it.
        try await store.delete(route)
        await #expect(throws: (any Error).self) {
            for try await _ in HKWorkoutRouteQueryDescriptor(route).results(for: store) {}
        }
    }
}
