import Foundation
import OpenHealthKit
import Testing

/// The iOS 15.4 series descriptors as their documentation pages use them
/// (`HKHeartbeatSeriesQueryDescriptor`, `HKQuantitySeriesSampleQueryDescriptor`), compiled
/// against `import OpenHealthKit` with only the import changed (and the values the snippets leave
/// to the app filled in).
@Suite("HealthKit series descriptor code, ported by changing the import", .timeLimit(.minutes(10)))
struct PortedSeriesDescriptorCodeTests {
    private func makeStore() -> (HKHealthStore, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ported-series-\(UUID().uuidString)")
        let store = HKHealthStore(configuration: .init(location: .file(folder.appendingPathComponent("health.sqlite")),
                                                       key: .keyFile(folder.appendingPathComponent("health.key"))))
        return (store, folder)
    }

    @Test("HKHeartbeatSeriesQueryDescriptor: each heartbeat of a series, as its documentation page reads them")
    func heartbeatSeriesDescriptor() async throws {
        let (store, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let heartbeatType = HKSeriesType.heartbeat()
        try await store.requestAuthorization(toShare: [heartbeatType], read: [heartbeatType])
        let builder = HKHeartbeatSeriesBuilder(healthStore: store, device: nil, start: Date().addingTimeInterval(-60))
        for (time, gap) in [(0.8, false), (1.6, false), (3.1, true), (3.9, false)] {
            try await builder.addHeartbeat(at: time, precededByGap: gap)
        }
        let myHeartbeatSample = try await builder.finishSeries()

        // Create the descriptor.
        let heartbeatDescriptor = HKHeartbeatSeriesQueryDescriptor(myHeartbeatSample)

        // Get the AsyncSequence that returns individual heartbeats.
        let series = heartbeatDescriptor.results(for: store)

        // Access the individual heartbeats.
        var beats: [HKHeartbeatSeriesQueryDescriptor.Heartbeat] = []
        for try await heartbeat in series {
            // Do something with each heartbeat here.
            beats.append(heartbeat)
        }
        #expect(beats.map(\.timeIntervalSinceStart) == [0.8, 1.6, 3.1, 3.9])
        #expect(beats.map(\.precededByGap) == [false, false, true, false])
        #expect(heartbeatDescriptor.sample.uuid == myHeartbeatSample.uuid)

        // A deleted series ends the sequence with errorNoData, as HKHeartbeatSeriesQuery reports it.
        try await store.delete(myHeartbeatSample)
        await #expect(throws: HKError.self) {
            for try await _ in heartbeatDescriptor.results(for: store) {}
        }
    }

    @Test("HKQuantitySeriesSampleQueryDescriptor: the quantities of a series and of a plain sample, with and without options")
    func quantitySeriesDescriptor() async throws {
        let (store, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let heartRateType = HKQuantityType(.heartRate)
        try await store.requestAuthorization(toShare: [heartRateType], read: [heartRateType])
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let start = Date().addingTimeInterval(-3_600)

        // A series of three quantities, and a plain sample starting between its first and second.
        let builder = HKQuantitySeriesSampleBuilder(healthStore: store, quantityType: heartRateType, startDate: start, device: nil)
        for (offset, value) in [(0.0, 100.0), (20.0, 110.0), (40.0, 120.0)] {
            try builder.insert(HKQuantity(unit: bpm, doubleValue: value), at: start.addingTimeInterval(offset))
        }
        let seriesSamples = try await builder.finishSeries(metadata: nil)
        let series = try #require(seriesSamples.first)
        let single = HKQuantitySample(type: heartRateType, quantity: HKQuantity(unit: bpm, doubleValue: 70),
                                      start: start.addingTimeInterval(10), end: start.addingTimeInterval(11))
        try await store.save(single)

        // All quantities of the type, in ascending start order.
        let all = HKQuantitySeriesSampleQueryDescriptor(predicate: .quantitySample(type: heartRateType))
        var values: [Double] = []
        for try await result in all.results(for: store) {
            values.append(result.quantity.doubleValue(for: bpm))
            #expect(result.sample == nil)
        }
        #expect(values == [100, 70, 110, 120])

        // Grouped by sample, each result carrying its sample.
        let grouped = HKQuantitySeriesSampleQueryDescriptor(predicate: .quantitySample(type: heartRateType),
                                                            options: [.orderByQuantitySampleStartDate, .includeSample])
        var owners: [UUID?] = []
        values = []
        for try await result in grouped.results(for: store) {
            values.append(result.quantity.doubleValue(for: bpm))
            owners.append(result.sample?.uuid)
        }
        #expect(values == [100, 110, 120, 70])
        #expect(owners == [series.uuid, series.uuid, series.uuid, single.uuid])

        // One series, by its UUID: each quantity with its own date interval.
        let one = HKQuantitySeriesSampleQueryDescriptor(
            predicate: .quantitySample(type: heartRateType, predicate: HKQuery.predicateForObject(with: series.uuid)))
        var intervals: [DateInterval] = []
        for try await result in one.results(for: store) { intervals.append(result.dateInterval) }
        #expect(intervals.map(\.start) == [0.0, 20.0, 40.0].map { start.addingTimeInterval($0) })
        #expect(one.options.isEmpty)
    }
}
