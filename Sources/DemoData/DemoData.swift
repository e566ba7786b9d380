import Foundation
import OpenHealthKit

/// A deterministic week (or more) of realistic data from a phone and a watch: what `health demo`
/// saves, and what the web page's benchmark renders (a year of it). It depends on OpenHealthKit
/// alone, so the CLI and the benchmarks use it without the web module.
public struct DemoData {
    /// What the phone saves: steps, walking and running distance, weight, blood pressure, glucose.
    public var phone: [HKSample] = []
    /// What the watch saves: steps, walking and running distance, active energy, exercise minutes,
    /// heart rate, resting heart rate, sleep.
    public var watch: [HKSample] = []
    /// The watch's runs, each with the heart rates recorded during it.
    public var watchWorkouts: [(workout: HKWorkout, heartRates: [HKQuantitySample])] = []
    /// The steps actually walked over the generated days (what the merged statistics give).
    public var walkedSteps: Double = 0
    /// The distance walked and run over the generated days, in meters (what the merged statistics give).
    public var walkedMeters: Double = 0

    /// The types of the samples the generator makes (what `health demo` asks to share and read).
    public static let sampleTypes: Set<HKSampleType> = [
        HKQuantityType(.stepCount), HKQuantityType(.distanceWalkingRunning), HKQuantityType(.activeEnergyBurned),
        HKQuantityType(.appleExerciseTime), HKQuantityType(.heartRate), HKQuantityType(.restingHeartRate), HKQuantityType(.bodyMass),
        HKQuantityType(.bloodPressureSystolic), HKQuantityType(.bloodPressureDiastolic), HKQuantityType(.bloodGlucose),
        HKCategoryType(.sleepAnalysis), HKObjectType.workoutType(),
    ]

    /// A small, seeded generator (SplitMix64) so every demo run prints the same numbers shape.
    struct Random {
        var state: UInt64
        mutating func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        mutating func range(_ lower: Double, _ upper: Double) -> Double { lower + (upper - lower) * next() }
    }

    /// `days` days of data, ending at the start of `end`'s day. Each day's data depends on its
    /// date alone (its generator is seeded with the date), so the same day always gives the same
    /// data, whichever window it is generated in.
    /// - Parameters:
    ///   - days: How many days.
    ///   - end: An instant of the day after the last one.
    ///   - calendar: The calendar (and time zone) the days are counted in.
    ///   - syncIdentifierPrefix: When given, every sample carries a sync identifier (version 1)
    ///     made of the prefix, its device (`phone`, `watch`), its type and its start, so that
    ///     saving the data again stores nothing twice; nil: no sync identifiers.
    public static func generate(days: Int, endingAt end: Date, calendar: Calendar, syncIdentifierPrefix: String? = nil) -> DemoData {
        var data = DemoData()
        let lastMidnight = calendar.startOfDay(for: end)
        /// The metadata of a sample `device` saves: `metadata` and, with a prefix, its sync identifier.
        func identified(_ metadata: [String: Any]?, _ device: String, _ type: String, _ start: Date) -> [String: Any]? {
            guard let syncIdentifierPrefix else { return metadata }
            var values = metadata ?? [:]
            let milliseconds = Int64((start.timeIntervalSince1970 * 1000).rounded())
            values[HKMetadataKeySyncIdentifier] = "\(syncIdentifierPrefix)\(device):\(type):\(milliseconds)"
            values[HKMetadataKeySyncVersion] = 1
            return values
        }
        let steps = HKQuantityType(.stepCount)
        let heartRate = HKQuantityType(.heartRate)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        for dayOffset in stride(from: -days, to: 0, by: 1) {
            guard let day = calendar.date(byAdding: .day, value: dayOffset, to: lastMidnight) else { continue }
            // The day's number: its generator's seed, whether it has a run, where its weight is.
            let ordinal = calendar.ordinality(of: .day, in: .era, for: day) ?? 0
            var random = Random(state: 20_261_122 &+ UInt64(truncatingIfNeeded: ordinal) &* 0x9E37_79B9_7F4A_7C15)
            func at(_ hour: Double) -> Date { day.addingTimeInterval(hour * 3600) }
            let runs = ordinal % 2 == 0
            // Steps, hour by hour while awake, counted by both devices where both are carried: the
            // phone stays home during the morning run, the watch is charging after 20:00. Both
            // count the same steps, so the store's merge (source priority) gives what was walked.
            // (The run's own steps, and the brisk walks at 12:00 and 18:00, are kept for the
            // distance, energy and exercise minutes below.)
            var hourly: [(hour: Int, walked: Double, brisk: Double)] = []
            for hour in 7..<23 {
                var count = random.range(150, 900)
                if runs, hour == 7 { count += 5_200 }
                var brisk = 0.0
                if hour == 12 || hour == 18 {
                    brisk = random.range(800, 1_600)
                    count += brisk
                }
                let walked = count.rounded()
                hourly.append((hour, walked, brisk.rounded()))
                data.walkedSteps += walked
                func sample(_ device: String) -> HKQuantitySample {
                    HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: walked),
                                     start: at(Double(hour)), end: at(Double(hour) + 1),
                                     metadata: identified(nil, device, steps.identifier, at(Double(hour))))
                }
                if !(runs && hour == 7) { data.phone.append(sample("phone")) }
                if hour < 20 { data.watch.append(sample("watch")) }
            }
            // Heart rate from the watch every 5 minutes.
            var workoutRates: [HKQuantitySample] = []
            for slot in 0..<(24 * 12) {
                let hour = Double(slot) / 12
                let asleep = hour < 7 || hour >= 23
                var rate = asleep ? random.range(50, 58) : random.range(64, 88)
                let inRun = runs && hour >= 7 && hour < 7 + 35.0 / 60
                if inRun { rate = random.range(138, 164) }
                let sample = HKQuantitySample(type: heartRate, quantity: HKQuantity(unit: bpm, doubleValue: rate.rounded()),
                                              start: at(hour), end: at(hour), metadata: identified(nil, "watch", heartRate.identifier, at(hour)))
                data.watch.append(sample)
                if inRun { workoutRates.append(sample) }
            }
            data.watch.append(HKQuantitySample(type: HKQuantityType(.restingHeartRate),
                                               quantity: HKQuantity(unit: bpm, doubleValue: random.range(54, 59).rounded()),
                                               start: at(12), end: at(12),
                                               metadata: identified(nil, "watch", HKQuantityTypeIdentifier.restingHeartRate.rawValue, at(12))))
            // Morning weight, blood pressure and fasting glucose from the phone (a connected scale and cuff).
            let kilograms = ((72.5 + 0.4 * sin(Double(ordinal) / 9) + random.range(-0.2, 0.2)) * 10).rounded() / 10
            data.phone.append(HKQuantitySample(type: HKQuantityType(.bodyMass),
                                               quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: kilograms),
                                               start: at(7.1), end: at(7.1),
                                               metadata: identified(nil, "phone", HKQuantityTypeIdentifier.bodyMass.rawValue, at(7.1))))
            let systolic = HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic),
                                            quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: random.range(112, 126).rounded()),
                                            start: at(7.2), end: at(7.2))
            let diastolic = HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic),
                                             quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: random.range(72, 82).rounded()),
                                             start: at(7.2), end: at(7.2))
            data.phone.append(HKCorrelation(type: HKCorrelationType(.bloodPressure), start: at(7.2), end: at(7.2),
                                            objects: [systolic, diastolic],
                                            metadata: identified(nil, "phone", HKCorrelationTypeIdentifier.bloodPressure.rawValue, at(7.2))))
            data.phone.append(HKQuantitySample(type: HKQuantityType(.bloodGlucose),
                                               quantity: HKQuantity(unit: HKUnit(from: "mmol<180.15588000005408>/L"),
                                                                    doubleValue: (random.range(4.6, 5.6) * 10).rounded() / 10),
                                               start: at(7.3), end: at(7.3),
                                               metadata: identified([HKMetadataKeyBloodGlucoseMealTime: 1], "phone",
                                                                    HKQuantityTypeIdentifier.bloodGlucose.rawValue, at(7.3))))
            // Sleep from the watch: in bed 23:00 until 07:00 the next morning, in stages.
            let sleep = HKCategoryTypeIdentifier.sleepAnalysis.rawValue
            data.watch.append(HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: HKCategoryValueSleepAnalysis.inBed.rawValue,
                                               start: at(23), end: at(31), metadata: identified(nil, "watch", sleep, at(23))))
            var cursor = at(23).addingTimeInterval(random.range(8, 20) * 60)
            let stages: [HKCategoryValueSleepAnalysis] = [.asleepCore, .asleepDeep, .asleepCore, .asleepREM]
            var stageIndex = 0
            while cursor < at(30.8) {
                let stage = stages[stageIndex % stages.count]
                let length = (stage == .asleepDeep ? random.range(20, 45) : random.range(25, 55)) * 60
                let stageEnd = min(cursor.addingTimeInterval(length), at(30.8))
                data.watch.append(HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: stage.rawValue, start: cursor, end: stageEnd,
                                                   metadata: identified(nil, "watch", sleep, cursor)))
                cursor = stageEnd
                stageIndex += 1
            }
            var run: HKWorkout?
            if runs {
                let workout = HKWorkout(activityType: .running, start: at(7), end: at(7 + 35.0 / 60), workoutEvents: nil,
                                        totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: random.range(360, 430).rounded()),
                                        totalDistance: HKQuantity(unit: .meter(), doubleValue: random.range(5_600, 6_400).rounded()),
                                        metadata: identified([HKMetadataKeyIndoorWorkout: false], "watch", HKWorkoutTypeIdentifier, at(7)))
                data.watchWorkouts.append((workout, workoutRates))
                run = workout
            }
            data.addActivity(hourly, run: run, ordinal: ordinal, at: at, identified: identified)
        }
        return data
    }

    /// A day's walking and running distance (from both devices, as the steps), active energy and
    /// exercise minutes (from the watch, worn until 20:00), hour by hour from its steps: 0.72 m and
    /// 0.045 kcal a step walked, the run's distance and energy in its hour, exercise for the run and
    /// for the brisk walks (110 steps a minute). Drawn from a generator of their own, so the other
    /// samples of the day stay what they were before these were added.
    private mutating func addActivity(_ hourly: [(hour: Int, walked: Double, brisk: Double)], run: HKWorkout?, ordinal: Int,
                                      at: (Double) -> Date, identified: (_ metadata: [String: Any]?, _ device: String, _ type: String,
                                                                        _ start: Date) -> [String: Any]?) {
        var random = Random(state: 39_000_000 &+ UInt64(truncatingIfNeeded: ordinal) &* 0xD1B5_4A32_D192_ED03)
        let distance = HKQuantityType(.distanceWalkingRunning)
        let energy = HKQuantityType(.activeEnergyBurned)
        let exercise = HKQuantityType(.appleExerciseTime)
        let runMeters = run?.totalDistance?.doubleValue(for: .meter()) ?? 0
        let runCalories = run?.totalEnergyBurned?.doubleValue(for: .kilocalorie()) ?? 0
        let runSteps = run == nil ? 0.0 : 5_200
        for (hour, walked, brisk) in hourly {
            let start = at(Double(hour)), end = at(Double(hour) + 1)
            let inRun = run != nil && hour == 7
            // The run's own steps are counted in its distance and energy, not at a walking pace.
            let walking = inRun ? max(0, walked - runSteps) : walked
            let meters = (walking * 0.72).rounded() + (inRun ? runMeters : 0)
            walkedMeters += meters
            func metersSample(_ device: String) -> HKQuantitySample {
                HKQuantitySample(type: distance, quantity: HKQuantity(unit: .meter(), doubleValue: meters), start: start, end: end,
                                 metadata: identified(nil, device, distance.identifier, start))
            }
            if !inRun { phone.append(metersSample("phone")) }
            guard hour < 20 else { continue }
            watch.append(metersSample("watch"))
            let calories = ((walking * 0.045 + random.range(6, 14)) * 10).rounded() / 10 + (inRun ? runCalories : 0)
            watch.append(HKQuantitySample(type: energy, quantity: HKQuantity(unit: .kilocalorie(), doubleValue: calories), start: start, end: end,
                                          metadata: identified(nil, "watch", energy.identifier, start)))
            let minutes = (inRun ? 35 : 0) + (brisk / 110).rounded()
            guard minutes > 0 else { continue }
            watch.append(HKQuantitySample(type: exercise, quantity: HKQuantity(unit: .minute(), doubleValue: minutes),
                                          start: start, end: start.addingTimeInterval(minutes * 60),
                                          metadata: identified(nil, "watch", exercise.identifier, start)))
        }
    }
}
