import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

@Suite("Statistics and statistics collection queries")
struct HKStatisticsQueryTests {
    static let steps = HKQuantityType(.stepCount)
    static let heartRate = HKQuantityType(.heartRate)

    @Test("Sums, time-weighted heart-rate averages, min, max, most recent and duration")
    func statistics() async throws {
        let store = TestStores.memory()
        try await store.save([Samples.steps(100, at: 0), Samples.steps(250, at: 600), Samples.steps(50, at: 3_600)])
        let sum = try await store.runStatisticsQuery(Self.steps, options: .cumulativeSum)
        #expect(sum.sumQuantity()?.doubleValue(for: .count()) == 400)
        #expect(sum.averageQuantity() == nil)

        // A 10-minute sample at 60 and a 1-minute sample at 120: weighted average 65.45…, not 90.
        try await store.save([Samples.heartRate(60, at: 0, seconds: 600), Samples.heartRate(120, at: 600, seconds: 60)])
        let heart = try await store.runStatisticsQuery(Self.heartRate, options: [.discreteAverage, .discreteMin, .discreteMax,
                                                                                    .mostRecent, .duration])
        let average = try #require(heart.averageQuantity()).doubleValue(for: Samples.bpm)
        #expect(abs(average - (60 * 600 + 120 * 60) / 660.0) < 1e-9)
        #expect(heart.minimumQuantity()?.doubleValue(for: Samples.bpm) == 60)
        #expect(abs((heart.maximumQuantity()?.doubleValue(for: Samples.bpm) ?? 0) - 120) < 1e-9)
        #expect(abs((heart.mostRecentQuantity()?.doubleValue(for: Samples.bpm) ?? 0) - 120) < 1e-9)
        #expect(heart.mostRecentQuantityDateInterval()?.start == Samples.reference.addingTimeInterval(600))
        #expect(heart.duration()?.doubleValue(for: .second()) == 660)
    }

    @Test("A date predicate clips: a cumulative sample straddling the start counts pro rata")
    func clipping() async throws {
        let store = TestStores.memory()
        try await store.save(Samples.steps(600, at: 0, minutes: 10))
        let predicate = HKQuery.predicateForSamples(withStart: Samples.reference.addingTimeInterval(300), end: Samples.reference.addingTimeInterval(3_600))
        let statistics = try await store.runStatisticsQuery(Self.steps, predicate: predicate, options: .cumulativeSum)
        #expect(abs((statistics.sumQuantity()?.doubleValue(for: .count()) ?? 0) - 300) < 1e-9)
        #expect(statistics.startDate == Samples.reference.addingTimeInterval(300))
    }

    @Test("Options that do not suit the type are an invalid argument; no data is errorNoData")
    func errors() async throws {
        let store = TestStores.memory()
        try await store.save(Samples.steps(1, at: 0))
        await #expect { _ = try await store.runStatisticsQuery(Self.steps, options: .discreteAverage) } throws: {
            ($0 as? HKError)?.code == .errorInvalidArgument
        }
        await #expect { _ = try await store.runStatisticsQuery(Self.heartRate, options: .discreteAverage) } throws: {
            ($0 as? HKError)?.code == .errorNoData
        }
    }

    @Test("separateBySource gives per-source figures and the list of sources")
    func bySource() async throws {
        let folder = TemporaryFolder()
        let phone = TestStores.app(folder, bundle: "com.example.phone")
        let watch = TestStores.app(folder, bundle: "com.example.watch")
        for app in [phone, watch] { try await app.requestAuthorization(toShare: [Self.steps], read: [Self.steps]) }
        try await phone.save([Samples.steps(100, at: 0), Samples.steps(200, at: 600)])
        try await watch.save(Samples.steps(150, at: 0))
        let statistics = try await phone.runStatisticsQuery(Self.steps, options: [.cumulativeSum, .separateBySource])
        // The two sources cover the same ten minutes: the merged sum counts them once, by source
        // priority (the phone saved first), while each source keeps its own figure.
        #expect(statistics.sumQuantity()?.doubleValue(for: .count()) == 300)
        let sources = try #require(statistics.sources)
        #expect(sources.map(\.bundleIdentifier) == ["com.example.phone", "com.example.watch"])
        #expect(statistics.sumQuantity(for: sources[0])?.doubleValue(for: .count()) == 300)
        #expect(statistics.sumQuantity(for: sources[1])?.doubleValue(for: .count()) == 150)
        let merged = try await phone.runStatisticsQuery(Self.steps, options: .cumulativeSum)
        #expect(merged.sources == nil && merged.sumQuantity(for: sources[0]) == nil)
    }

    @Test("Daily buckets follow the calendar across DST in a named time zone", arguments: ["America/New_York", "Europe/Berlin"])
    func daylightSaving(_ zone: String) async throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        let isNewYork = zone == "America/New_York"
        // The autumn change: 2025-11-02 in New York, 2025-10-26 in Berlin (25-hour days).
        let day = try #require(calendar.date(from: DateComponents(year: 2025, month: isNewYork ? 11 : 10, day: isNewYork ? 2 : 26)))
        let anchor = try #require(calendar.date(byAdding: .day, value: -1, to: day))
        let store = TestStores.memory()
        // One step per 15 minutes over three days.
        var samples: [HKQuantitySample] = []
        var time = anchor
        let end = try #require(calendar.date(byAdding: .day, value: 3, to: anchor))
        while time < end {
            samples.append(HKQuantitySample(type: Self.steps, quantity: HKQuantity(unit: .count(), doubleValue: 1), start: time,
                                            end: time.addingTimeInterval(60)))
            time.addTimeInterval(900)
        }
        try await store.save(samples)
        let query = HKStatisticsCollectionQuery(quantityType: Self.steps, quantitySamplePredicate: nil, options: .cumulativeSum,
                                                anchorDate: anchor, intervalComponents: DateComponents(day: 1))
        query.calendar = calendar
        let collection: HKStatisticsCollection = try await withCheckedThrowingContinuation { continuation in
            query.initialResultsHandler = { _, collection, error in
                if let collection { continuation.resume(returning: collection) } else {
                    continuation.resume(throwing: error ?? HKError(.errorNoData, "none"))
                }
            }
            store.execute(query)
        }
        let buckets = collection.statistics()
        #expect(buckets.map { $0.endDate.timeIntervalSince($0.startDate) / 3600 } == [24, 25, 24])
        #expect(buckets.map { $0.sumQuantity()?.doubleValue(for: .count()) } == [96, 100, 96])
        #expect(buckets.map { calendar.component(.hour, from: $0.startDate) } == [0, 0, 0])
        let middle = try #require(collection.statistics(for: day.addingTimeInterval(23 * 3600)))
        #expect(middle.startDate == day)
        // enumerateStatistics visits empty intervals too.
        var visited: [Double?] = []
        collection.enumerateStatistics(from: try #require(calendar.date(byAdding: .day, value: -2, to: anchor)), to: end) { statistics, _ in
            visited.append(statistics.sumQuantity()?.doubleValue(for: .count()))
        }
        #expect(visited == [nil, nil, 96, 100, 96])
    }

    @Test("A collection query with an update handler reports changed intervals")
    func updates() async throws {
        let store = TestStores.memory()
        try await store.save(Samples.steps(10, at: 0))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let query = HKStatisticsCollectionQuery(quantityType: Self.steps, quantitySamplePredicate: nil, options: .cumulativeSum,
                                                anchorDate: calendar.startOfDay(for: Samples.reference), intervalComponents: DateComponents(hour: 1))
        query.calendar = calendar
        let initial = Inbox<Double>()
        let updates = Inbox<Double>()
        query.initialResultsHandler = { _, collection, _ in
            initial.append(collection?.statistics().first?.sumQuantity()?.doubleValue(for: .count()) ?? -1)
        }
        query.statisticsUpdateHandler = { _, statistics, _, _ in
            updates.append(statistics?.sumQuantity()?.doubleValue(for: .count()) ?? -1)
        }
        store.execute(query)
        #expect(await initial.wait(for: 1) == [10])
        try await store.save(Samples.steps(5, at: 60))
        #expect(await updates.wait(for: 1) == [15])
        store.stop(query)
    }

    @Test("Async statistics descriptors")
    func descriptors() async throws {
        let store = TestStores.memory()
        try await store.save([Samples.steps(3, at: 0), Samples.steps(4, at: 7_200)])
        let statistics = try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: Self.steps), options: .cumulativeSum)
            .result(for: store)
        #expect(statistics?.sumQuantity()?.doubleValue(for: .count()) == 7)
        var descriptor = HKStatisticsCollectionQueryDescriptor(predicate: .quantitySample(type: Self.steps), options: .cumulativeSum,
                                                               anchorDate: Samples.reference, intervalComponents: DateComponents(hour: 1))
        descriptor.calendar = Calendar(identifier: .gregorian)
        let collection = try await descriptor.result(for: store)
        #expect(collection.statistics().compactMap { $0.sumQuantity()?.doubleValue(for: .count()) } == [3, 4])
    }
}
