import Foundation
import OpenHealthKit
import Testing

/// Snippets from Apple's HealthKit documentation and sample code, changed only where Swift 6
/// strict concurrency requires it (results leave handlers through continuations). They must
/// compile against `import OpenHealthKit` and behave as documented.
@Suite("HealthKit documentation code, ported by changing the import")
struct PortedHealthKitCodeTests {
    /// A store in a private folder, used like the default `HKHealthStore()`.
    private func makeStore() -> (HKHealthStore, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ported-\(UUID().uuidString)")
        let store = HKHealthStore(configuration: .init(location: .file(folder.appendingPathComponent("health.sqlite")),
                                                       key: .keyFile(folder.appendingPathComponent("health.key"))))
        return (store, folder)
    }

    @Test("Authorizing, saving and summing today's steps (HKStatisticsQuery)")
    func todaysSteps() async throws {
        let (healthStore, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        guard HKHealthStore.isHealthDataAvailable() else { Issue.record("health data unavailable"); return }
        let allTypes: Set = [HKQuantityType.workoutType(), HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceCycling),
                             HKQuantityType(.distanceWalkingRunning), HKQuantityType(.distanceWheelchair), HKQuantityType(.heartRate),
                             HKQuantityType(.stepCount)]
        try await healthStore.requestAuthorization(toShare: allTypes, read: allTypes)

        guard let stepsQuantityType = HKQuantityType.quantityType(forIdentifier: .stepCount) else { return }
        let now = Date()
        let startOfDay = Calendar.current.startOfDay(for: now)
        let walk = HKQuantitySample(type: stepsQuantityType, quantity: HKQuantity(unit: HKUnit.count(), doubleValue: 1_234),
                                    start: startOfDay.addingTimeInterval(60), end: startOfDay.addingTimeInterval(120))
        try await healthStore.save(walk)

        let predicate = HKQuery.predicateForSamples(withStart: startOfDay, end: now, options: .strictStartDate)
        let steps: Double = await withCheckedContinuation { completion in
            let query = HKStatisticsQuery(quantityType: stepsQuantityType, quantitySamplePredicate: predicate, options: .cumulativeSum) { _, result, _ in
                guard let result = result, let sum = result.sumQuantity() else {
                    completion.resume(returning: 0.0)
                    return
                }
                completion.resume(returning: sum.doubleValue(for: HKUnit.count()))
            }
            healthStore.execute(query)
        }
        #expect(steps == 1_234)
        #expect(healthStore.authorizationStatus(for: stepsQuantityType) == .sharingAuthorized)
    }

    @Test("Weekly step totals anchored on Monday 3:00 (HKStatisticsCollectionQuery)")
    func weeklySteps() async throws {
        let (healthStore, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stepType = HKQuantityType(.stepCount)
        try await healthStore.requestAuthorization(toShare: [stepType], read: [stepType])
        let calendar = Calendar.current
        // Noon of each of the 14 days before today: none after now (a sample of today's noon
        // lies in a week that has not begun when the test runs on a Monday before 3:00).
        try await healthStore.save((1...14).map { day in
            let start = calendar.date(byAdding: .day, value: -day, to: calendar.startOfDay(for: Date()))!.addingTimeInterval(12 * 3600)
            return HKQuantitySample(type: stepType, quantity: HKQuantity(unit: .count(), doubleValue: 1000), start: start,
                                    end: start.addingTimeInterval(600))
        })

        let interval = DateComponents(day: 7)
        let components = DateComponents(calendar: calendar, timeZone: calendar.timeZone, hour: 3, minute: 0, second: 0, weekday: 2)
        guard let anchorDate = calendar.nextDate(after: Date(), matching: components, matchingPolicy: .nextTime,
                                                 repeatedTimePolicy: .first, direction: .backward) else {
            Issue.record("*** unable to find the previous Monday. ***")
            return
        }
        guard let quantityType = HKObjectType.quantityType(forIdentifier: .stepCount) else { return }
        let query = HKStatisticsCollectionQuery(quantityType: quantityType, quantitySamplePredicate: nil, options: .cumulativeSum,
                                                anchorDate: anchorDate, intervalComponents: interval)
        let weeks: [(Date, Double)] = await withCheckedContinuation { continuation in
            query.initialResultsHandler = { query, results, error in
                guard let statsCollection = results else {
                    continuation.resume(returning: [])
                    return
                }
                let endDate = Date()
                let threeMonthsAgo = DateComponents(month: -3)
                guard let startDate = calendar.date(byAdding: threeMonthsAgo, to: endDate) else { return }
                var rows: [(Date, Double)] = []
                statsCollection.enumerateStatistics(from: startDate, to: endDate) { statistics, stop in
                    if let quantity = statistics.sumQuantity() {
                        let date = statistics.startDate
                        let value = quantity.doubleValue(for: .count())
                        rows.append((date, value))
                    }
                }
                continuation.resume(returning: rows)
            }
            healthStore.execute(query)
        }
        #expect(weeks.map(\.1).reduce(0, +) == 14_000)
        #expect(weeks.allSatisfy { calendar.component(.weekday, from: $0.0) == 2 && calendar.component(.hour, from: $0.0) == 3 })
    }

    @Test("Newest samples first with NSSortDescriptor, and characteristics")
    func sampleQueryAndCharacteristics() async throws {
        let (healthStore, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        guard let sampleType = HKSampleType.quantityType(forIdentifier: .bodyMass) else { return }
        try await healthStore.requestAuthorization(toShare: [sampleType], read: [sampleType, HKObjectType.characteristicType(forIdentifier: .dateOfBirth)!])
        for (offset, kilograms) in [72.0, 71.5, 71.2].enumerated() {
            let date = Date(timeIntervalSinceNow: Double(offset - 3) * 86_400)
            try await healthStore.save(HKQuantitySample(type: sampleType, quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: kilograms),
                                                        start: date, end: date))
        }
        let sortDescriptor = NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: false)
        let latest: Double? = await withCheckedContinuation { continuation in
            let query = HKSampleQuery(sampleType: sampleType, predicate: nil, limit: Int(HKObjectQueryNoLimit),
                                      sortDescriptors: [sortDescriptor]) { query, results, error in
                guard let samples = results as? [HKQuantitySample] else {
                    continuation.resume(returning: nil)
                    return
                }
                continuation.resume(returning: samples.first?.quantity.doubleValue(for: .pound()))
            }
            healthStore.execute(query)
        }
        #expect(abs((latest ?? 0) - 71.2 / 0.45359237) < 1e-9)
        // Not set (or not authorized) looks the same: an error for the date of birth, notSet for sex.
        #expect(throws: (any Error).self) { _ = try healthStore.dateOfBirthComponents() }
        #expect(try healthStore.biologicalSex().biologicalSex == .notSet)
    }

    @Test("Swift concurrency descriptors: samples, statistics collection, anchored updates")
    func descriptors() async throws {
        let (store, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stepType = HKQuantityType(.stepCount)
        try await store.requestAuthorization(toShare: [stepType, HKObjectType.workoutType()], read: [stepType, HKObjectType.workoutType()])
        let endDate = Calendar.current.startOfDay(for: Date())
        let startDate = Calendar.current.date(byAdding: .day, value: -7, to: endDate)!
        try await store.save(HKQuantitySample(type: stepType, quantity: HKQuantity(unit: .count(), doubleValue: 500),
                                              start: startDate.addingTimeInterval(3600), end: startDate.addingTimeInterval(7200)))

        let thisWeek = HKQuery.predicateForSamples(withStart: startDate, end: endDate)
        let stepsThisWeek = HKSamplePredicate.quantitySample(type: stepType, predicate: thisWeek)
        let everyDay = DateComponents(day: 1)
        let sumOfStepsQuery = HKStatisticsCollectionQueryDescriptor(predicate: stepsThisWeek, options: .cumulativeSum,
                                                                    anchorDate: endDate, intervalComponents: everyDay)
        let stepCounts = try await sumOfStepsQuery.result(for: store)
        var total = 0.0
        stepCounts.enumerateStatistics(from: startDate, to: endDate) { statistics, _ in
            total += statistics.sumQuantity()?.doubleValue(for: .count()) ?? 0
        }
        #expect(total == 500)

        let descriptor = HKSampleQueryDescriptor(predicates: [.quantitySample(type: stepType)],
                                                 sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)], limit: 10)
        #expect(try await descriptor.result(for: store).count == 1)

        let anchorDescriptor = HKAnchoredObjectQueryDescriptor(predicates: [.workout()], anchor: nil)
        let updateQueue = anchorDescriptor.results(for: store)
        let run = HKWorkout(activityType: .running, start: startDate, end: startDate.addingTimeInterval(1800))
        var deliveries = 0
        for try await results in updateQueue {
            deliveries += 1
            if deliveries == 1 {
                #expect(results.addedSamples.isEmpty)
                try await store.save(run)
            } else {
                #expect(results.addedSamples.map(\.workoutActivityType) == [.running])
                break
            }
        }
    }
}
