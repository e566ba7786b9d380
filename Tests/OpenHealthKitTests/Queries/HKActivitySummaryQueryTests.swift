import Foundation
import Testing
import TestSupport
@testable import OpenHealthKit

@Suite("HKActivitySummaryQuery", .timeLimit(.minutes(10)))
struct HKActivitySummaryQueryTests {
    private static let revision = HKSourceRevision(source: HKSource(name: "Health", bundleIdentifier: "org.example.health"), version: nil)

    private static func day(_ day: Int, month: Int = 3, year: Int = 2024) -> DateComponents {
        DateComponents(year: year, month: month, day: day)
    }

    private static func summary(_ day: Int, energy: Double, month: Int = 3) throws -> HKActivitySummary {
        try HKActivitySummary(dateComponents: Self.day(day, month: month), activeEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: energy),
                              activeEnergyBurnedGoal: HKQuantity(unit: .kilocalorie(), doubleValue: 500),
                              appleExerciseTime: HKQuantity(unit: .minute(), doubleValue: 31),
                              exerciseTimeGoal: HKQuantity(unit: .minute(), doubleValue: 30),
                              appleStandHours: HKQuantity(unit: .count(), doubleValue: 11))
    }

    private static func read(_ store: HKHealthStore, _ predicate: NSPredicate?) async -> (summaries: [HKActivitySummary]?, error: (any Error)?) {
        let inbox = Inbox<([HKActivitySummary]?, String?)>()
        store.execute(HKActivitySummaryQuery(predicate: predicate) { _, summaries, error in
            inbox.append((summaries, error.map { "\($0)" }))
        })
        let result = await inbox.wait(for: 1)[0]
        return (result.0, result.1.map { HKError(.errorInvalidArgument, $0) })
    }

    private static func energies(_ summaries: [HKActivitySummary]?) -> [Double] {
        (summaries ?? []).map { $0.activeEnergyBurned.doubleValue(for: .kilocalorie()) }
    }

    @Test("Saved summaries read back in day order, whole; predicates pick one day or a range of days")
    func saveAndQuery() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        // Saved out of order, across a month's end (February of a leap year has 29 days).
        try await store.saveActivitySummaries([try Self.summary(2, energy: 420), try Self.summary(29, energy: 380, month: 2),
                                                try Self.summary(1, energy: 400)], recordedAs: Self.revision)
        let all = await Self.read(store, nil)
        #expect(Self.energies(all.summaries) == [380, 400, 420])
        let first = try #require(all.summaries?.first)
        #expect(first == (try Self.summary(29, energy: 380, month: 2)))
        let components = first.dateComponents(for: Calendar(identifier: .gregorian))
        #expect(components.year == 2024 && components.month == 2 && components.day == 29)
        #expect(first.exerciseTimeGoal?.doubleValue(for: .minute()) == 30)
        #expect(first.standHoursGoal == nil)
        #expect(first.appleStandHoursGoal.doubleValue(for: .count()) == 0)

        #expect(Self.energies(await Self.read(store, HKQuery.predicateForActivitySummary(with: Self.day(1))).summaries) == [400])
        let range = HKQuery.predicate(forActivitySummariesBetweenStart: Self.day(29, month: 2), end: Self.day(1))
        #expect(Self.energies(await Self.read(store, range).summaries) == [380, 400])
        #expect(Self.energies(await Self.read(store, HKQuery.predicateForActivitySummary(with: Self.day(30, month: 2))).summaries) == [])
    }

    @Test("A day saved again replaces the stored summary of that day and source")
    func replaces() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.saveActivitySummaries([try Self.summary(1, energy: 400)], recordedAs: Self.revision)
        try await store.saveActivitySummaries([try Self.summary(1, energy: 450)], recordedAs: Self.revision)
        #expect(Self.energies(await Self.read(store, nil).summaries) == [450])
    }

    @Test("Apps read summaries once authorized and never write them")
    func apps() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        try await owner.saveActivitySummaries([try Self.summary(1, energy: 400)], recordedAs: Self.revision)
        let reader = TestStores.app(folder, bundle: "com.example.reader")
        try await reader.requestAuthorization(toShare: [], read: [HKObjectType.activitySummaryType()])
        #expect(Self.energies(await Self.read(reader, nil).summaries) == [400])
        let stranger = TestStores.app(folder, bundle: "com.example.stranger")
        #expect(Self.energies(await Self.read(stranger, nil).summaries) == [])
        await #expect(throws: HKError.self) {
            try await reader.saveActivitySummaries([try Self.summary(2, energy: 1)], recordedAs: Self.revision)
        }
    }

    @Test("Days that do not exist and quantities in the wrong unit are refused")
    func invalid() throws {
        #expect(throws: HKError.self) { try HKActivitySummary(dateComponents: Self.day(30, month: 2)) }
        #expect(throws: HKError.self) { try HKActivitySummary(dateComponents: DateComponents(year: 2024, month: 3)) }
        #expect(throws: HKError.self) {
            try HKActivitySummary(dateComponents: Self.day(1), activeEnergyBurned: HKQuantity(unit: .meter(), doubleValue: 1))
        }
        #expect(throws: HKError.self) {
            try HKActivitySummary(dateComponents: Self.day(1), appleStandHours: HKQuantity(unit: .count(), doubleValue: .infinity))
        }
    }
}
