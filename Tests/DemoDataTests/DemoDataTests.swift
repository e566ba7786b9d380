import DemoData
import Foundation
import OpenHealthKit
import Testing

/// `health demo`'s generator: a day's data depends on its date alone, so a demo run on a later
/// day, into a kept store, finds the days it shares with the earlier run already there.
@Suite("The demo data")
struct DemoDataTests {
    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }

    /// Every sample of the data by sync identifier, with its value (quantity in its type's
    /// display unit, category value, or the dates of a workout or correlation).
    static func values(_ data: DemoData) -> [String: String] {
        var values: [String: String] = [:]
        for sample in data.phone + data.watch + data.watchWorkouts.map(\.workout) {
            guard let identifier = sample.metadata?[HKMetadataKeySyncIdentifier] as? String else { continue }
            switch sample {
            case let quantity as HKQuantitySample:
                values[identifier] = "\(quantity.quantity.doubleValue(for: quantity.quantityType.defaultDisplayUnit))"
            case let category as HKCategorySample:
                values[identifier] = "\(category.value) \(category.endDate.timeIntervalSince1970)"
            default:
                values[identifier] = "\(sample.startDate.timeIntervalSince1970) \(sample.endDate.timeIntervalSince1970)"
            }
        }
        return values
    }

    @Test("Windows ending a day apart share their common days sample for sample (same sync identifiers, same values); every sample has its own identifier")
    func sameDaySameData() throws {
        let end = Date(timeIntervalSince1970: 1_795_132_800)   // 2026-11-20T00:00:00Z
        let earlier = DemoData.generate(days: 3, endingAt: end, calendar: Self.calendar, syncIdentifierPrefix: "demo:")
        let later = DemoData.generate(days: 3, endingAt: end.addingTimeInterval(86_400), calendar: Self.calendar, syncIdentifierPrefix: "demo:")
        let first = Self.values(earlier), second = Self.values(later)
        #expect(first.count == earlier.phone.count + earlier.watch.count + earlier.watchWorkouts.count)
        let shared = Set(first.keys).intersection(second.keys)
        // The earlier window is the 17th to the 19th, the later one the 18th to the 20th: they share
        // everything but the 17th, which a one-day window ending on the 18th generates alone.
        let seventeenth = Self.values(DemoData.generate(days: 1, endingAt: end.addingTimeInterval(-2 * 86_400), calendar: Self.calendar,
                                                        syncIdentifierPrefix: "demo:"))
        #expect(!seventeenth.isEmpty)
        #expect(shared == Set(first.keys).subtracting(seventeenth.keys))
        for identifier in shared { #expect(first[identifier] == second[identifier], "\(identifier)") }
        let again = Self.values(DemoData.generate(days: 3, endingAt: end, calendar: Self.calendar, syncIdentifierPrefix: "demo:"))
        #expect(again == first)
        // Without a prefix, no identifiers (the web benchmark's data).
        let plain = DemoData.generate(days: 1, endingAt: end, calendar: Self.calendar)
        #expect((plain.phone + plain.watch).allSatisfy { $0.metadata?[HKMetadataKeySyncIdentifier] == nil })
    }

    /// The store of a phone and a watch over `data`, as `health demo` saves it (a file store in `folder`).
    static func saved(_ data: DemoData, in folder: URL) async throws -> HKHealthStore {
        let location = HKHealthStore.Location.file(folder.appendingPathComponent("health.sqlite"))
        let key = StoreKey.keyFile(folder.appendingPathComponent("health.key"))
        func app(_ name: String, _ bundle: String) -> HKHealthStore {
            HKHealthStore(configuration: .init(location: location, key: key, source: HKSource(name: name, bundleIdentifier: bundle)))
        }
        let phone = app("iPhone Health", "com.example.phone"), watch = app("Watch", "com.example.watch")
        for store in [phone, watch] { try await store.requestAuthorization(toShare: DemoData.sampleTypes, read: DemoData.sampleTypes) }
        try await phone.save(data.phone)
        try await watch.save(data.watch + data.watchWorkouts.map(\.workout))
        let owner = HKHealthStore(configuration: .init(location: location, key: key, role: .owner))
        try owner.open()
        return owner
    }

    /// The merged day sums give what was walked (not both devices' sum); every day has energy and
    /// exercise; a run day counts the run's distance, energy and 35 minutes.
    @Test("Distance, active energy and exercise minutes follow the steps and the runs, and merge to what was walked")
    func activityFollowsStepsAndRuns() async throws {
        let end = Date(timeIntervalSince1970: 1_795_132_800)   // 2026-11-20T00:00:00Z
        let data = DemoData.generate(days: 4, endingAt: end, calendar: Self.calendar, syncIdentifierPrefix: "demo:")
        #expect(data.watchWorkouts.count == 2)   // every other day has a run
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ohk-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await Self.saved(data, in: folder)
        let start = end.addingTimeInterval(-4 * 86_400)
        func daySums(_ type: HKQuantityType, _ unit: HKUnit) async throws -> [Date: Double] {
            let collection = try await HKStatisticsCollectionQueryDescriptor(
                predicate: .quantitySample(type: type, predicate: HKQuery.predicateForSamples(withStart: start, end: end)),
                options: .cumulativeSum, anchorDate: start, intervalComponents: DateComponents(day: 1)).result(for: store)
            var sums: [Date: Double] = [:]
            collection.enumerateStatistics(from: start, to: end) { statistics, _ in
                sums[statistics.startDate] = statistics.sumQuantity()?.doubleValue(for: unit)
            }
            return sums
        }
        let meters = try await daySums(HKQuantityType(.distanceWalkingRunning), .meter())
        let steps = try await daySums(HKQuantityType(.stepCount), .count())
        let calories = try await daySums(HKQuantityType(.activeEnergyBurned), .kilocalorie())
        let minutes = try await daySums(HKQuantityType(.appleExerciseTime), .minute())
        #expect(meters.count == 4 && calories.count == 4 && minutes.count == 4)
        // Merged by source priority, the phone's and the watch's distances count once.
        #expect(abs(meters.values.reduce(0, +) - data.walkedMeters) < 0.001)
        let bothDevices = (data.phone + data.watch).compactMap { $0 as? HKQuantitySample }
            .filter { $0.quantityType == HKQuantityType(.distanceWalkingRunning) }.map { $0.quantity.doubleValue(for: .meter()) }.reduce(0, +)
        #expect(bothDevices > data.walkedMeters * 1.2)
        for day in meters.keys.sorted() {
            let run = data.watchWorkouts.map(\.workout).first { Self.calendar.isDate($0.startDate, inSameDayAs: day) }
            let dayMeters = meters[day] ?? 0, daySteps = steps[day] ?? 0
            let dayCalories = calories[day] ?? 0, dayMinutes = minutes[day] ?? 0
            if let run {
                let runMeters = try #require(run.totalDistance?.doubleValue(for: .meter()))
                let runCalories = try #require(run.totalEnergyBurned?.doubleValue(for: .kilocalorie()))
                // The run's distance and energy, and walking's 0.72 m and 0.045 kcal a step besides.
                #expect(abs(dayMeters - runMeters - (daySteps - 5_200) * 0.72) < 20, "\(day)")
                #expect(dayCalories > runCalories + 200 && dayCalories < runCalories + 900, "\(day): \(dayCalories)")
                #expect(dayMinutes >= 35 + 14 && dayMinutes <= 35 + 30, "\(day): \(dayMinutes)")
            } else {
                #expect(abs(dayMeters - daySteps * 0.72) < 20, "\(day)")
                #expect(dayCalories > 200 && dayCalories < 900, "\(day): \(dayCalories)")
                #expect(dayMinutes >= 14 && dayMinutes <= 30, "\(day): \(dayMinutes)")
            }
        }
        // Nothing after the window's end: the day of `end` has no data yet.
        let after = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.activeEnergyBurned),
                                                                                  predicate: HKQuery.predicateForSamples(withStart: end, end: nil))],
                                                      sortDescriptors: []).result(for: store)
        #expect(after.isEmpty)
    }

    /// What the UI benchmarks save (`UIFixture.saveDemoYear`): 365 UTC days ending at 2026-01-01.
    static let yearSamples = 138_089

    @Test("a year of demo data (365 UTC days of 2025) is the number of samples the UI benchmarks' comment gives")
    func yearCount() {
        let end = Date(timeIntervalSince1970: 1_767_225_600)
        let data = DemoData.generate(days: 365, endingAt: end, calendar: Self.calendar)
        let workoutRates = Set(data.watchWorkouts.flatMap(\.heartRates).map(\.uuid))
        // The runs' heart rates are among the watch's samples.
        #expect(workoutRates.isSubset(of: Set(data.watch.map(\.uuid))))
        #expect(data.phone.count + data.watch.count + data.watchWorkouts.count == Self.yearSamples)
    }
}
