import ArgumentParser
import DemoData
import Foundation
import HealthPresentation
import OpenHealthKit

/// `health demo`: a guided tour on a fresh store in a temporary folder, or in a kept folder
/// where running it again adds only what is missing.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Create a store in a temporary folder, save a week of realistic samples, import health records and a health card, "
            + "and print queries and statistics.",
        discussion: """
            With --keep DIR the store stays in DIR (health.sqlite, health.key) with the demo issuer's key (DIR/demo-issuer, \
            the private key mode 0600) and its card (DIR/demo-issuer/vaccination.smart-health-card), listed in DIR/issuer-keys.json \
            so that health ui --store DIR/health.sqlite verifies the card. Running it again into the same DIR adds only what is \
            missing: every demo sample has a sync identifier, and the same issuer key and card are used again.
            """)

    /// The prefix of the demo samples' sync identifiers.
    static let syncIdentifierPrefix = "org.openhealthkit.demo:"

    @Option(help: "How many days of data to generate.")
    var days: Int = 7

    @Option(help: ArgumentHelp("Keep the demo store in this folder instead of a temporary one.", valueName: "dir"))
    var keep: String?

    mutating func validate() throws {
        guard (1...366).contains(days) else { throw ValidationError("--days must be between 1 and 366") }
    }

    mutating func run() async throws {
        let folder = keep.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("openhealthkit-demo-\(UUID().uuidString)")
        defer { if keep == nil { try? FileManager.default.removeItem(at: folder) } }
        let database = folder.appendingPathComponent("health.sqlite")
        let key = StoreKey.keyFile(folder.appendingPathComponent("health.key"))
        func app(_ name: String, _ bundle: String, provider: any AuthorizationProvider = OwnerConsentAuthorizationProvider()) -> HKHealthStore {
            HKHealthStore(configuration: .init(location: .file(database), key: key, source: HKSource(name: name, bundleIdentifier: bundle),
                                               authorizationProvider: provider))
        }
        let phone = app("iPhone Health", "com.example.phone")
        let watch = app("Watch", "com.example.watch")
        let existing = FileManager.default.fileExists(atPath: database.path)
        print("OpenHealthKit demo: an encrypted store at \(database.path)"
              + (existing ? " (it was already there: only what is missing is added)\n" : "\n"))

        let types = DemoData.sampleTypes
        try await phone.requestAuthorization(toShare: types, read: types)
        try await watch.requestAuthorization(toShare: types, read: types)

        let calendar = Calendar.current
        let now = Date()
        let data = DemoData.generate(days: days, endingAt: now, calendar: calendar, syncIdentifierPrefix: Self.syncIdentifierPrefix)
        let workouts = data.watchWorkouts.map(\.workout)
        var added = try await Self.saveMissing(data.phone, to: phone)
        added += try await Self.saveMissing(data.watch + workouts, to: watch)
        try await Self.associate(data.watchWorkouts, in: watch)
        let total = data.phone.count + data.watch.count + workouts.count
        if added == total {
            print("Saved \(total) samples from 2 sources over \(days) days.\n")
        } else if added == 0 {
            print("All \(total) samples of these \(days) days were already in the store: nothing was added.\n")
        } else {
            print("Saved \(added) new samples from 2 sources over \(days) days; the other \(total - added) were already in the store.\n")
        }

        let today = calendar.startOfDay(for: now)
        let start = calendar.date(byAdding: .day, value: -days, to: today) ?? today
        let range = HKQuery.predicateForSamples(withStart: start, end: today)

        // Steps per day.
        let steps = try await HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: HKQuantityType(.stepCount), predicate: range), options: [.cumulativeSum, .separateBySource],
            anchorDate: today, intervalComponents: DateComponents(day: 1)).result(for: phone)
        print("Steps per day (the phone and the watch merged by source priority)")
        var stepRows: [(String, Double?)] = []
        var merged = 0.0
        var bySource: [String: Double] = [:]
        steps.enumerateStatistics(from: start, to: today) { statistics, _ in
            let sum = statistics.sumQuantity()?.doubleValue(for: .count())
            stepRows.append((Self.day(statistics.startDate), sum))
            merged += sum ?? 0
            for source in statistics.sources ?? [] {
                bySource[source.name, default: 0] += statistics.sumQuantity(for: source)?.doubleValue(for: .count()) ?? 0
            }
        }
        @Sendable func stepText(_ value: Double) -> String { NumberText.format(value, decimals: 0) }
        BarChart.lines(stepRows, format: stepText).forEach { print("  " + $0) }
        let perSource = bySource.keys.sorted().map { "\($0) \(stepText(bySource[$0] ?? 0))" }.joined(separator: ", ")
        print("  Walked: \(stepText(merged)) steps (\(merged == data.walkedSteps ? "as generated" : "generated \(stepText(data.walkedSteps))"));"
              + " counted by \(perSource); their sum, \(stepText(bySource.values.reduce(0, +))), would count the same steps twice.")

        // Walking and running distance, active energy and exercise minutes per day.
        try await Self.printActivity(from: start, to: today, in: phone, walkedMeters: data.walkedMeters)

        // Heart rate per day.
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let heart = try await HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: HKQuantityType(.heartRate), predicate: range),
            options: [.discreteAverage, .discreteMin, .discreteMax], anchorDate: today, intervalComponents: DateComponents(day: 1))
            .result(for: watch)
        print("\nHeart rate per day (bpm, time-weighted average)")
        for statistics in heart.statistics() {
            let average = statistics.averageQuantity()?.doubleValue(for: bpm) ?? 0
            let low = statistics.minimumQuantity()?.doubleValue(for: bpm) ?? 0
            let high = statistics.maximumQuantity()?.doubleValue(for: bpm) ?? 0
            print("  \(Self.day(statistics.startDate))  avg \(String(format: "%.1f", average))  min \(formatNumber(low))  max \(formatNumber(high))")
        }

        // Latest weight and glucose, in two units each.
        let newestFirst = [SortDescriptor<HKQuantitySample>(\.startDate, order: .reverse)]
        if let weight = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.bodyMass))],
                                                          sortDescriptors: newestFirst, limit: 1).result(for: phone).first {
            print("\nLatest weight: \(formatNumber(weight.quantity.doubleValue(for: .gramUnit(with: .kilo)))) kg"
                  + " = \(String(format: "%.1f", weight.quantity.doubleValue(for: .pound()))) lb")
        }
        if let glucose = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.bloodGlucose))],
                                                           sortDescriptors: newestFirst, limit: 1).result(for: phone).first {
            let mmol = glucose.quantity.doubleValue(for: HKUnit(from: "mmol<180.15588000005408>/L"))
            let mg = glucose.quantity.doubleValue(for: HKUnit(from: "mg/dL"))
            print("Latest fasting glucose: \(String(format: "%.1f", mmol)) mmol/L = \(String(format: "%.0f", mg)) mg/dL")
        }

        // Last night's sleep by stage.
        let lastNight = HKQuery.predicateForSamples(withStart: today.addingTimeInterval(-3 * 3600), end: today.addingTimeInterval(8 * 3600))
        let sleep = try await HKSampleQueryDescriptor(predicates: [.categorySample(type: HKCategoryType(.sleepAnalysis), predicate: lastNight)],
                                                      sortDescriptors: []).result(for: watch)
        var minutesByStage: [Int: Double] = [:]
        for sample in sleep { minutesByStage[sample.value, default: 0] += sample.endDate.timeIntervalSince(sample.startDate) / 60 }
        print("\nLast night's sleep")
        for stage in HKCategoryValueSleepAnalysis.allCases where minutesByStage[stage.rawValue] != nil {
            let minutes = minutesByStage[stage.rawValue] ?? 0
            let label = CategoryValues.label(of: stage.rawValue, for: HKCategoryType(.sleepAnalysis))
            print("  \(label.padding(toLength: 14, withPad: " ", startingAt: 0)) \(Int(minutes) / 60) h \(Int(minutes) % 60) min")
        }

        // Blood pressure readings.
        let pressure = try await HKCorrelationQueryDescriptor(predicate: .correlation(type: HKCorrelationType(.bloodPressure)))
            .result(for: phone).suffix(3)
        print("\nBlood pressure (last \(pressure.count))")
        for reading in pressure {
            let systolic = reading.objects(for: HKQuantityType(.bloodPressureSystolic)).first as? HKQuantitySample
            let diastolic = reading.objects(for: HKQuantityType(.bloodPressureDiastolic)).first as? HKQuantitySample
            print("  \(formatDate(reading.startDate))  \(formatNumber(systolic?.quantity.doubleValue(for: .millimeterOfMercury()) ?? 0))"
                  + "/\(formatNumber(diastolic?.quantity.doubleValue(for: .millimeterOfMercury()) ?? 0)) mmHg")
        }

        // Workouts and the heart rate recorded during the last one.
        let runs = try await HKSampleQueryDescriptor(predicates: [.workout(HKQuery.predicateForWorkouts(with: .running))],
                                                     sortDescriptors: [SortDescriptor(\.startDate)]).result(for: watch)
        print("\nRuns: \(runs.count)")
        for run in runs { print("  \(formatDate(run.startDate))  \(SampleFormatter.valueText(run, unit: nil))") }
        if let last = runs.last {
            let during = try await HKStatisticsQueryDescriptor(
                predicate: .quantitySample(type: HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: last)),
                options: [.discreteAverage, .discreteMax]).result(for: watch)
            if let during, let average = during.averageQuantity(), let maximum = during.maximumQuantity() {
                print("  heart rate during the last run: avg \(formatNumber(average.doubleValue(for: bpm).rounded()))"
                      + ", max \(formatNumber(maximum.doubleValue(for: bpm))) bpm")
            }
        }

        // Sources.
        print("\nSources")
        for type in [HKQuantityType(.stepCount), HKQuantityType(.distanceWalkingRunning), HKQuantityType(.activeEnergyBurned),
                     HKQuantityType(.appleExerciseTime), HKQuantityType(.heartRate)] {
            let sources = try await HKSourceQueryDescriptor(predicate: .quantitySample(type: type)).result(for: phone)
            print("  \(type.displayName): " + sources.map(\.name).joined(separator: ", "))
        }

        // Incremental sync with a correction: the newest weighing saved again under its sync
        // identifier with a higher version replaces it (once: a kept store has it already).
        let sync = HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.bodyMass))], anchor: nil)
        let first = try await sync.result(for: phone)
        var corrected = false
        if let newest = first.addedSamples.max(by: { $0.startDate < $1.startDate }),
           let identifier = newest.metadata?[HKMetadataKeySyncIdentifier] as? String,
           let version = try await StoredSyncVersions.of([identifier], type: HKQuantityType(.bodyMass), source: phone.configuration.source,
                                                         in: phone)[identifier], version < 2 {
            let correction = HKQuantitySample(type: HKQuantityType(.bodyMass), quantity: HKQuantity(unit: .pound(), doubleValue: 159.2),
                                              start: newest.startDate, end: newest.endDate,
                                              metadata: [HKMetadataKeySyncIdentifier: identifier, HKMetadataKeySyncVersion: 2])
            try await phone.save(correction)
            corrected = true
        }
        let next = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.bodyMass))],
                                                             anchor: first.newAnchor).result(for: phone)
        print("\nAnchored sync of body mass: \(first.addedSamples.count) samples at first; "
              + (corrected ? "the newest weighing corrected (its sync identifier, version 2) replaces it: " : "")
              + "since that anchor \(next.addedSamples.count) added and \(next.deletedObjects.count) deleted"
              + (corrected ? "" : " (the newest weighing is corrected already)"))

        // Privacy: an app that was denied reading sees exactly what an empty store shows.
        let deny = PolicyFileAuthorizationProvider(policy: .init(apps: [:], default: nil))
        let curious = app("Curious App", "com.example.curious", provider: deny)
        try await curious.requestAuthorization(toShare: [], read: [HKQuantityType(.heartRate)])
        let seen = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.heartRate))],
                                                     sortDescriptors: []).result(for: curious)
        print("An app denied read access sees \(seen.count) heart-rate samples (the watch saved \(data.watch.count { $0 is HKQuantitySample }))."
              + " It can ask only for its sharing status: \(curious.authorizationStatus(for: HKQuantityType(.heartRate))).")
        try await DemoHealthRecords.run(database: database, key: key, folder: folder)
        if keep == nil { print("\nThe demo store is deleted on exit; pass --keep DIR to keep it.") }
    }

    /// Prints the walking and running distance, active energy and exercise minutes of each day
    /// from `start` to `end` (the phone and the watch merged by source priority, as the steps),
    /// and the distance of them all against what was generated.
    static func printActivity(from start: Date, to end: Date, in store: HKHealthStore, walkedMeters: Double) async throws {
        let range = HKQuery.predicateForSamples(withStart: start, end: end)
        let kinds: [(type: HKQuantityType, unit: HKUnit, label: String, decimals: Int)] = [
            (HKQuantityType(.distanceWalkingRunning), .meterUnit(with: .kilo), "km", 1),
            (HKQuantityType(.activeEnergyBurned), .kilocalorie(), "kcal", 0),
            (HKQuantityType(.appleExerciseTime), .minute(), "min", 0),
        ]
        var rows: [String: [String]] = [:]
        var days: [String] = []
        var meters = 0.0
        for (column, kind) in kinds.enumerated() {
            let sums = try await HKStatisticsCollectionQueryDescriptor(
                predicate: .quantitySample(type: kind.type, predicate: range), options: .cumulativeSum, anchorDate: end,
                intervalComponents: DateComponents(day: 1)).result(for: store)
            sums.enumerateStatistics(from: start, to: end) { statistics, _ in
                let day = Self.day(statistics.startDate)
                if rows[day] == nil { days.append(day) }
                var row = rows[day] ?? [day, "–", "–", "–"]
                if let sum = statistics.sumQuantity() {
                    row[column + 1] = NumberText.format(sum.doubleValue(for: kind.unit), decimals: kind.decimals) + " " + kind.label
                    if column == 0 { meters += sum.doubleValue(for: .meter()) }
                }
                rows[day] = row
            }
        }
        print("\nWalking and running distance, active energy and exercise minutes per day (the phone and the watch merged by source priority)")
        HealthFormatter.columns(days.compactMap { rows[$0] }, rightAligned: [1, 2, 3]).forEach { print("  " + $0) }
        let generated = (walkedMeters / 1_000 * 10).rounded() / 10, counted = (meters / 1_000 * 10).rounded() / 10
        print("  Walked and ran: \(NumberText.format(counted, decimals: 1)) km"
              + " (\(counted == generated ? "as generated" : "generated \(NumberText.format(generated, decimals: 1)) km"))")
    }

    /// Saves the samples `store`'s source does not have yet (by sync identifier).
    /// - Returns: how many were saved.
    static func saveMissing(_ samples: [HKSample], to store: HKHealthStore) async throws -> Int {
        let stored = try await StoredSyncVersions.of(samples, source: store.configuration.source, in: store)
        let missing = samples.filter { sample in
            guard let identifier = sample.metadata?[HKMetadataKeySyncIdentifier] as? String else { return true }
            return stored[sample.sampleType.identifier]?[identifier] == nil
        }
        if !missing.isEmpty { try await store.save(missing) }
        return missing.count
    }

    /// Associates each run with the heart rates recorded during it, as stored (a run and its
    /// rates saved in an earlier demo are the stored ones; associating again changes nothing).
    static func associate(_ runs: [(workout: HKWorkout, heartRates: [HKQuantitySample])], in store: HKHealthStore) async throws {
        func identifiers(_ samples: [HKSample]) -> [String] { samples.compactMap { $0.metadata?[HKMetadataKeySyncIdentifier] as? String } }
        let source = store.configuration.source
        let storedRuns = try await StoredSyncVersions.samples(identifiers(runs.map(\.workout)), type: HKObjectType.workoutType(),
                                                              source: source, in: store)
        for (workout, rates) in runs {
            guard let identifier = workout.metadata?[HKMetadataKeySyncIdentifier] as? String,
                  let stored = storedRuns[identifier] as? HKWorkout else { continue }
            let storedRates = try await StoredSyncVersions.samples(identifiers(rates), type: HKQuantityType(.heartRate), source: source, in: store)
            try await store.add(Array(storedRates.values), to: stored)
        }
    }

    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE yyyy-MM-dd"
        return formatter.string(from: date)
    }
}
