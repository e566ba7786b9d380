import Foundation
import Testing
import TestSupport
@testable import OpenHealthKit

/// One quantity a series query delivered.
struct SeriesItem: @unchecked Sendable {
    var quantity: HKQuantity
    var interval: DateInterval
    var sample: HKQuantitySample?
}

extension HKHealthStore {
    /// Runs a quantity series query to its end and returns what it delivered.
    func runSeriesQuery(_ type: HKQuantityType, predicate: NSPredicate? = nil, includeSample: Bool = false,
                        orderBySample: Bool = false) async throws -> [SeriesItem] {
        let inbox = Inbox<SeriesItem>()
        return try await withCheckedThrowingContinuation { continuation in
            let query = HKQuantitySeriesSampleQuery(quantityType: type, predicate: predicate) { _, quantity, interval, sample, done, error in
                if let error {
                    continuation.resume(throwing: error)
                    return
                }
                if let quantity, let interval { inbox.append(SeriesItem(quantity: quantity, interval: interval, sample: sample)) }
                if done { continuation.resume(returning: inbox.values) }
            }
            query.includeSample = includeSample
            query.orderByQuantitySampleStartDate = orderBySample
            execute(query)
        }
    }

    /// Runs a heartbeat series query to its end.
    func runHeartbeatQuery(_ series: HKHeartbeatSeriesSample) async throws -> [(TimeInterval, Bool)] {
        let inbox = Inbox<HKHeartbeatSeriesSample.Heartbeat>()
        return try await withCheckedThrowingContinuation { continuation in
            execute(HKHeartbeatSeriesQuery(heartbeatSeries: series) { _, time, gap, done, error in
                if let error {
                    continuation.resume(throwing: error)
                    return
                }
                inbox.append(.init(timeSinceStart: time, precededByGap: gap))
                if done { continuation.resume(returning: inbox.values.map { ($0.timeSinceStart, $0.precededByGap) }) }
            })
        }
    }

    /// Runs a statistics collection query.
    func runCollectionQuery(_ type: HKQuantityType, predicate: NSPredicate? = nil, options: HKStatisticsOptions, anchor: Date,
                            interval: DateComponents) async throws -> HKStatisticsCollection {
        try await withCheckedThrowingContinuation { continuation in
            let query = HKStatisticsCollectionQuery(quantityType: type, quantitySamplePredicate: predicate, options: options, anchorDate: anchor,
                                                    intervalComponents: interval)
            query.initialResultsHandler = { _, collection, error in
                if let collection { continuation.resume(returning: collection) } else {
                    continuation.resume(throwing: error ?? HKError(.errorNoData, "no collection"))
                }
            }
            execute(query)
        }
    }
}

@Suite("Quantity and heartbeat series", .timeLimit(.minutes(10)))
struct SeriesTests {
    private let heartRate = HKQuantityType(.heartRate)
    private let bpm = Samples.bpm

    /// Builds and saves a heart-rate series of `values`, one a minute from `Samples.reference`.
    private func heartRateSeries(_ store: HKHealthStore, _ values: [Double], offset: TimeInterval = 0,
                                 metadata: [String: Any]? = nil) async throws -> HKQuantitySample {
        let start = Samples.reference.addingTimeInterval(offset)
        let builder = HKQuantitySeriesSampleBuilder(healthStore: store, quantityType: heartRate, startDate: start, device: nil)
        for (index, value) in values.enumerated() {
            try builder.insert(HKQuantity(unit: bpm, doubleValue: value), at: start.addingTimeInterval(Double(index) * 60))
        }
        let samples = try await builder.finishSeries(metadata: metadata)
        return try #require(samples.first)
    }

    @Test("A series is one sample whose count is its quantities: sample and anchored queries, deletion")
    func roundTrip() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let values: [Double] = [61, 75, 58, 90, 66, 70, 72, 64, 88, 59]
        let saved = try await heartRateSeries(store, values, metadata: ["Session": "morning"])
        #expect(saved.count == 10)

        let read = try await store.runSampleQuery(heartRate)
        #expect(read.count == 1)
        let series = try #require(read.first as? HKDiscreteQuantitySample)
        #expect(series.uuid == saved.uuid)
        #expect(series.count == 10)
        #expect(series.startDate == Samples.reference)
        #expect(series.endDate == Samples.reference.addingTimeInterval(9 * 60))
        #expect(series.minimumQuantity.doubleValue(for: bpm) == 58)
        #expect(series.maximumQuantity.doubleValue(for: bpm) == 90)
        #expect(abs(series.averageQuantity.doubleValue(for: bpm) - values.reduce(0, +) / 10) < 1e-9)
        #expect(series.mostRecentQuantity.doubleValue(for: bpm) == 59)
        #expect(series.mostRecentQuantityDateInterval.start == Samples.reference.addingTimeInterval(9 * 60))
        #expect(series.metadata?["Session"] as? String == "morning")

        let first = try await store.runAnchoredQuery(heartRate, anchor: nil)
        #expect(first.added.map(\.uuid) == [saved.uuid])
        #expect((first.added.first as? HKQuantitySample)?.count == 10)

        try await store.delete(series)
        let second = try await store.runAnchoredQuery(heartRate, anchor: first.anchor)
        #expect(second.added.isEmpty)
        #expect(second.deleted.map(\.uuid) == [saved.uuid])
        await #expect(throws: HKError.self) { _ = try await store.runStatisticsQuery(heartRate, options: .discreteAverage) }
        #expect(try await store.runSeriesQuery(heartRate).isEmpty)
    }

    @Test("The series query reads each quantity with its interval, in start order or by sample, with its sample")
    func seriesQuery() async throws {
        let store = TestStores.memory()
        let a = try await heartRateSeries(store, [60, 61, 62])             // 0, 60, 120 s
        let b = try await heartRateSeries(store, [70, 71], offset: 30)     // 30, 90 s
        let single = Samples.heartRate(80, at: 45, seconds: 5)
        try await store.save(single)

        let ordered = try await store.runSeriesQuery(heartRate)
        #expect(ordered.map { $0.quantity.doubleValue(for: bpm) } == [60, 70, 80, 61, 71, 62])
        #expect(ordered.allSatisfy { $0.sample == nil })
        #expect(ordered[2].interval == DateInterval(start: Samples.reference.addingTimeInterval(45), duration: 5))

        let grouped = try await store.runSeriesQuery(heartRate, includeSample: true, orderBySample: true)
        #expect(grouped.map { $0.quantity.doubleValue(for: bpm) } == [60, 61, 62, 70, 71, 80])
        #expect(grouped.map { $0.sample?.uuid } == [a.uuid, a.uuid, a.uuid, b.uuid, b.uuid, single.uuid])

        let one = try await store.runSeriesQuery(heartRate, predicate: HKQuery.predicateForObject(with: b.uuid))
        #expect(one.map { $0.interval.start } == [Samples.reference.addingTimeInterval(30), Samples.reference.addingTimeInterval(90)])

        // HealthKit's first (iOS 12) form, deprecated as HealthKit's is: one sample, quantities with their start dates.
        // Made through a protocol requirement, so the test builds without a deprecation warning.
        let inbox = Inbox<Date>()
        let dates: [Date] = try await withCheckedThrowingContinuation { continuation in
            store.execute((FirstSeriesQueryForm.self as any SeriesQueryForm.Type).query(sample: a) { _, quantity, date, done, error in
                if let error { continuation.resume(throwing: error); return }
                if quantity != nil, let date { inbox.append(date) }
                if done { continuation.resume(returning: inbox.values) }
            })
        }
        #expect(dates == [0, 60, 120].map { Samples.reference.addingTimeInterval($0) })
    }

    @Test("The builder's rules: start date, replacement, units, end date, discard")
    func builderRules() async throws {
        let store = TestStores.memory()
        let start = Samples.reference
        let builder = HKQuantitySeriesSampleBuilder(healthStore: store, quantityType: HKQuantityType(.stepCount), startDate: start, device: nil)
        #expect(builder.quantityType == HKQuantityType(.stepCount))
        #expect(builder.startDate == start)
        #expect(throws: HKError.self) { try builder.insert(HKQuantity(unit: .count(), doubleValue: 5), at: start.addingTimeInterval(-1)) }
        #expect(throws: HKError.self) { try builder.insert(HKQuantity(unit: .meter(), doubleValue: 5), at: start) }
        #expect(throws: HKError.self) { try builder.insert(HKQuantity(unit: .count(), doubleValue: .infinity), at: start) }
        try builder.insert(HKQuantity(unit: .count(), doubleValue: 10), for: DateInterval(start: start, duration: 60))
        try builder.insert(HKQuantity(unit: .count(), doubleValue: 12), for: DateInterval(start: start, duration: 60))   // replaces
        try builder.insert(HKQuantity(unit: .count(), doubleValue: 30), for: DateInterval(start: start.addingTimeInterval(60), duration: 60))
        await #expect(throws: HKError.self) { _ = try await builder.finishSeries(metadata: nil, endDate: start.addingTimeInterval(90)) }
        let samples = try await builder.finishSeries(metadata: nil, endDate: start.addingTimeInterval(600))
        let series = try #require(samples.first as? HKCumulativeQuantitySample)
        #expect(series.count == 2)
        #expect(series.sumQuantity.doubleValue(for: .count()) == 42)
        #expect(series.endDate == start.addingTimeInterval(600))
        #expect(throws: HKError.self) { try builder.insert(HKQuantity(unit: .count(), doubleValue: 1), at: start) }
        let stats = try await store.runStatisticsQuery(HKQuantityType(.stepCount), options: .cumulativeSum)
        #expect(stats.sumQuantity()?.doubleValue(for: .count()) == 42)

        let dropped = HKQuantitySeriesSampleBuilder(healthStore: store, quantityType: heartRate, startDate: start, device: nil)
        try dropped.insert(HKQuantity(unit: bpm, doubleValue: 70), at: start)
        dropped.discard()
        #expect(throws: HKError.self) { try dropped.insert(HKQuantity(unit: bpm, doubleValue: 70), at: start) }
        await #expect(throws: HKError.self) { _ = try await dropped.finishSeries(metadata: nil) }
        #expect(try await store.runSampleQuery(heartRate).isEmpty)
    }

    @Test("Heartbeat series: builder, sample query, heartbeat query, anchored query with deletion, authorization")
    func heartbeats() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let app = TestStores.app(folder, bundle: "org.example.hrv")
        let type = HKSeriesType.heartbeat()
        #expect(type.identifier == HKDataTypeIdentifierHeartbeatSeries)
        #expect(HKObjectType.seriesType(forIdentifier: HKDataTypeIdentifierHeartbeatSeries) == type)
        try await app.requestAuthorization(toShare: [type], read: [type])

        let builder = HKHeartbeatSeriesBuilder(healthStore: app, device: nil, start: Samples.reference)
        let times: [(TimeInterval, Bool)] = [(0.0, false), (0.82, false), (1.61, false), (3.2, true), (4.01, false)]
        for (time, gap) in times { try await builder.addHeartbeat(at: time, precededByGap: gap) }
        try await builder.addMetadata(["Context": "breathe"])
        await #expect(throws: HKError.self) { try await builder.addHeartbeat(at: -1, precededByGap: false) }
        let series = try await builder.finishSeries()
        #expect(series.count == 5)
        #expect(series.endDate == Samples.reference.addingTimeInterval(4.01))

        let read = try await owner.runSampleQuery(type)
        let stored = try #require(read.first as? HKHeartbeatSeriesSample)
        #expect(read.count == 1 && stored.uuid == series.uuid && stored.count == 5)
        #expect(stored.metadata?["Context"] as? String == "breathe")
        let beats = try await owner.runHeartbeatQuery(stored)
        #expect(beats.map(\.0) == times.map(\.0))
        #expect(beats.map(\.1) == times.map(\.1))

        let first = try await owner.runAnchoredQuery(type, anchor: nil)
        #expect(first.added.map(\.uuid) == [series.uuid])
        try await app.delete(stored)
        let second = try await owner.runAnchoredQuery(type, anchor: first.anchor)
        #expect(second.deleted.map(\.uuid) == [series.uuid])
        await #expect(throws: HKError.self) { _ = try await owner.runHeartbeatQuery(stored) }
    }

    @Test("Statistics of a series named by its UUID or by the workout it was added to are the series' quantities")
    func statisticsBySeriesOrWorkout() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let values: [Double] = [60, 70, 80, 90]
        let series = try await heartRateSeries(store, values)
        try await store.save(Samples.heartRate(150, at: 30))
        let steps = HKQuantitySeriesSampleBuilder(healthStore: store, quantityType: HKQuantityType(.stepCount), startDate: Samples.reference, device: nil)
        for minute in 0..<3 {
            try steps.insert(HKQuantity(unit: .count(), doubleValue: 100),
                             for: DateInterval(start: Samples.reference.addingTimeInterval(Double(minute) * 60), duration: 60))
        }
        let stepSeries = try #require(try await steps.finishSeries(metadata: nil).first)
        try await store.save(Samples.steps(1_000, at: 0))
        let run = HKWorkout(activityType: .running, start: Samples.reference, end: Samples.reference.addingTimeInterval(600))
        try await store.save(run)
        try await store.add([series, stepSeries], to: run)

        for predicate in [HKQuery.predicateForObjects(from: run), HKQuery.predicateForObject(with: series.uuid)] {
            let average = try await store.runStatisticsQuery(heartRate, predicate: predicate, options: [.discreteAverage, .discreteMax])
            #expect(average.averageQuantity()?.doubleValue(for: bpm) == 75)
            #expect(average.maximumQuantity()?.doubleValue(for: bpm) == 90)
        }
        for predicate in [HKQuery.predicateForObjects(from: run), HKQuery.predicateForObject(with: stepSeries.uuid)] {
            let sum = try await store.runStatisticsQuery(HKQuantityType(.stepCount), predicate: predicate, options: .cumulativeSum)
            #expect(sum.sumQuantity()?.doubleValue(for: .count()) == 300)
        }
        // Decided after decryption too (a value comparison), and the series' own members stay unnamed.
        let above = NSCompoundPredicate(andPredicateWithSubpredicates: [
            HKQuery.predicateForObjects(from: run), HKQuery.predicateForQuantitySamples(with: .greaterThan, quantity: HKQuantity(unit: bpm, doubleValue: 65)),
        ])
        #expect(try await store.runStatisticsQuery(heartRate, predicate: above, options: .discreteAverage).averageQuantity()?.doubleValue(for: bpm) == 80)
    }

    @Test("A quantity series and a heartbeat series restored from Recently deleted equal the deleted ones")
    func restoreSeries() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let values: [Double] = [61, 75, 58, 90]
        let series = try await heartRateSeries(store, values, metadata: ["Session": "morning"])
        let builder = HKHeartbeatSeriesBuilder(healthStore: store, device: nil, start: Samples.reference)
        let times: [(TimeInterval, Bool)] = [(0.0, false), (0.82, false), (1.61, false), (3.2, true)]
        for (time, gap) in times { try await builder.addHeartbeat(at: time, precededByGap: gap) }
        let beats = try await builder.finishSeries()
        try await store.delete([series, beats])

        let items = try await store.recentlyDeletedItems()
        #expect(items.count == 2)
        try await store.restoreRecentlyDeleted(items.map(\.id))
        let restored = try #require(try await store.runSampleQuery(heartRate).first as? HKDiscreteQuantitySample)
        #expect(restored.uuid != series.uuid && restored.count == 4)
        #expect(restored.startDate == series.startDate && restored.endDate == series.endDate)
        #expect(restored.maximumQuantity.doubleValue(for: bpm) == 90 && restored.metadata?["Session"] as? String == "morning")
        let quantities = try await store.runSeriesQuery(heartRate, includeSample: true)
        #expect(quantities.map { $0.quantity.doubleValue(for: bpm) } == values)
        #expect(quantities.map(\.interval.start) == (0..<4).map { Samples.reference.addingTimeInterval(Double($0) * 60) })
        #expect(quantities.allSatisfy { $0.sample?.uuid == restored.uuid })
        let average = try await store.runStatisticsQuery(heartRate, options: .discreteAverage)
        #expect(average.averageQuantity()?.doubleValue(for: bpm) == values.reduce(0, +) / 4)

        let restoredBeats = try #require(try await store.runSampleQuery(HKSeriesType.heartbeat()).first as? HKHeartbeatSeriesSample)
        #expect(restoredBeats.uuid != beats.uuid && restoredBeats.count == 4 && restoredBeats.endDate == beats.endDate)
        let read = try await store.runHeartbeatQuery(restoredBeats)
        #expect(read.map(\.0) == times.map(\.0) && read.map(\.1) == times.map(\.1))
    }

    @Test("The store's sample counts count a series once, not its quantities")
    func sampleCountsCountSeriesOnce() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        _ = try await heartRateSeries(store, [60, 70, 80, 90])
        try await store.save(Samples.heartRate(150, at: 30))
        let counts = try await store.engine.databaseAsync().sampleCounts()
        #expect(counts[heartRate.identifier] == 2)
    }

    /// Random quantities: (value, start offset, duration), distinct starts.
    private func randomEntries(_ random: inout SplitMix64, count: Int, cumulative: Bool) -> [(Double, TimeInterval, TimeInterval)] {
        (0..<count).map { index in
            let start = Double(index) * 900 + Double(random.int(0...800))
            let duration = cumulative ? Double(random.int(0...3_600)) : Double(random.int(0...2) == 0 ? 0 : random.int(1...120))
            let value = cumulative ? Double(random.int(0...2_000)) / 4 : Double(random.int(4_000...18_000)) / 100
            return (value, start, duration)
        }
    }

    @Test("Statistics of a series equal those of the same quantities saved one by one (random series)", arguments: 1...6)
    func statisticsProperty(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let cases: [(HKQuantityType, HKUnit, HKStatisticsOptions)] = [
            (HKQuantityType(.heartRate), Samples.bpm, [.discreteAverage, .discreteMin, .discreteMax, .mostRecent]),
            (HKQuantityType(.stepCount), .count(), .cumulativeSum),
            (HKQuantityType(.activeEnergyBurned), .kilocalorie(), .cumulativeSum),
        ]
        let (type, unit, options) = cases[Int(seed) % cases.count]
        let cumulative = type.aggregationStyle == .cumulative
        let entries = randomEntries(&random, count: random.int(1...40), cumulative: cumulative)
        let device = HKDevice(name: "Sensor", manufacturer: "Example", model: nil, hardwareVersion: nil, firmwareVersion: nil,
                              softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil)
        let series = TestStores.memory()
        let single = TestStores.memory()
        let start = Samples.reference
        let builder = HKQuantitySeriesSampleBuilder(healthStore: series, quantityType: type, startDate: start, device: device)
        for (value, offset, duration) in entries {
            try builder.insert(HKQuantity(unit: unit, doubleValue: value), for: DateInterval(start: start.addingTimeInterval(offset), duration: duration))
        }
        let saved = try await builder.finishSeries(metadata: nil)
        #expect(saved.first?.count == entries.count)
        try await single.save(entries.map { value, offset, duration in
            HKQuantitySample(type: type, quantity: HKQuantity(unit: unit, doubleValue: value), start: start.addingTimeInterval(offset),
                             end: start.addingTimeInterval(offset + duration), device: device, metadata: nil)
        })

        func figures(_ statistics: HKStatistics?) -> [Double?] {
            [statistics?.sumQuantity(), statistics?.averageQuantity(), statistics?.minimumQuantity(), statistics?.maximumQuantity(),
             statistics?.mostRecentQuantity()].map { $0?.doubleValue(for: unit) }
        }
        let hour = start.addingTimeInterval(Double(random.int(0...20)) * 1_800)
        let predicates: [NSPredicate?] = [
            nil,                                                                            // rollups
            HKQuery.predicateForSamples(withStart: hour, end: hour.addingTimeInterval(7_200), options: []),  // clipped
            HKQuery.predicateForObjects(from: [device]),                                    // decided after decryption
        ]
        for predicate in predicates {
            let a = try? await series.runStatisticsQuery(type, predicate: predicate, options: options)
            let b = try? await single.runStatisticsQuery(type, predicate: predicate, options: options)
            #expect(figures(a) == figures(b), "seed \(seed), predicate \(String(describing: predicate))")
            let collectionA = try await series.runCollectionQuery(type, predicate: predicate, options: options, anchor: start,
                                                                  interval: DateComponents(hour: 1))
            let collectionB = try await single.runCollectionQuery(type, predicate: predicate, options: options, anchor: start,
                                                                  interval: DateComponents(hour: 1))
            for offset in stride(from: 0.0, to: 44 * 3_600, by: 3_600) {
                let date = start.addingTimeInterval(offset + 1)
                #expect(figures(collectionA.statistics(for: date)) == figures(collectionB.statistics(for: date)),
                        "seed \(seed), hour \(offset / 3_600)")
            }
        }
    }

    /// Code in the form Apple's documentation declares these APIs and WWDC19's "Exploring New
    /// Data Representations in HealthKit" uses them, with completion handlers, changed only by
    /// the import (results leave the handlers through continuations).
    @Test("HealthKit series code ported by changing the import")
    func ported() async throws {
        let healthStore = TestStores.memory()
        let quantityType = HKQuantityType.quantityType(forIdentifier: .heartRate)!
        let startDate = Samples.reference
        let builder = HKQuantitySeriesSampleBuilder(healthStore: healthStore, quantityType: quantityType, startDate: startDate, device: nil)
        let unit = HKUnit.count().unitDivided(by: HKUnit.minute())
        for second in stride(from: 0.0, to: 10.0, by: 1.0) {
            let quantity = HKQuantity(unit: unit, doubleValue: 60 + second)
            let dateInterval = DateInterval(start: startDate.addingTimeInterval(second), duration: 1)
            try builder.insert(quantity, for: dateInterval)
        }
        let samples: [HKQuantitySample] = try await withCheckedThrowingContinuation { continuation in
            builder.finishSeries(metadata: nil) { samples, error in
                if let samples { continuation.resume(returning: samples) } else { continuation.resume(throwing: error!) }
            }
        }
        #expect(samples.first?.count == 10)

        let predicate = HKQuery.predicateForSamples(withStart: startDate, end: startDate.addingTimeInterval(60), options: .strictStartDate)
        let inbox = Inbox<Double>()
        let values: [Double] = await withCheckedContinuation { continuation in
            let query = HKQuantitySeriesSampleQuery(quantityType: quantityType, predicate: predicate) { query, quantity, dateInterval, sample, done, error in
                if let quantity = quantity { inbox.append(quantity.doubleValue(for: unit)) }
                if done { continuation.resume(returning: inbox.values) }
            }
            healthStore.execute(query)
        }
        #expect(values == (0..<10).map { 60 + Double($0) })

        let heartbeatBuilder = HKHeartbeatSeriesBuilder(healthStore: healthStore, device: .local(), start: startDate)
        let added: Bool = await withCheckedContinuation { continuation in
            heartbeatBuilder.addHeartbeatWithTimeInterval(sinceSeriesStartDate: 0.8, precededByGap: false) { success, error in
                continuation.resume(returning: success)
            }
        }
        #expect(added)
        let heartbeatSeries: HKHeartbeatSeriesSample? = await withCheckedContinuation { continuation in
            heartbeatBuilder.finishSeries { heartbeatSeries, error in continuation.resume(returning: heartbeatSeries) }
        }
        let sample = try #require(heartbeatSeries)
        let beats: [TimeInterval] = await withCheckedContinuation { continuation in
            let times = Inbox<TimeInterval>()
            let query = HKHeartbeatSeriesQuery(heartbeatSeries: sample) { query, timeSinceSeriesStart, precededByGap, done, error in
                times.append(timeSinceSeriesStart)
                if done { continuation.resume(returning: times.values) }
            }
            healthStore.execute(query)
        }
        #expect(beats == [0.8])
    }
}

/// Makes the deprecated `HKQuantitySeriesSampleQuery(sample:quantityHandler:)` (iOS 12; deprecated in
/// iOS 13) for a test, called through this requirement so no deprecation warning is emitted.
private protocol SeriesQueryForm {
    static func query(sample: HKQuantitySample,
                      handler: @escaping @Sendable (HKQuantitySeriesSampleQuery, HKQuantity?, Date?, Bool, (any Error)?) -> Void)
        -> HKQuantitySeriesSampleQuery
}

private enum FirstSeriesQueryForm: SeriesQueryForm {
    @available(*, deprecated)
    static func query(sample: HKQuantitySample,
                      handler: @escaping @Sendable (HKQuantitySeriesSampleQuery, HKQuantity?, Date?, Bool, (any Error)?) -> Void)
        -> HKQuantitySeriesSampleQuery {
        HKQuantitySeriesSampleQuery(sample: sample, quantityHandler: handler)
    }
}
