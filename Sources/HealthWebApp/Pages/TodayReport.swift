import Foundation
import OpenHealthKit

/// The numbers of the Today page, read through the public OpenHealthKit API: today's totals as the
/// Health app counts them (one statistics query per type, which merges the sources by priority),
/// last night's sleep by stage, the newest heart rate, resting heart rate, weight and blood
/// pressure, and today's workouts.
public struct TodayReport: Sendable {
    /// Today: from the start of the day to the start of the next.
    public let day: DateInterval
    /// Today's sums, in the order of ``totalTypes``, all sources merged; for a type with no samples
    /// today yet, the sum of the last day with samples (its day in ``totalDays``); nil for a type
    /// with no samples at all.
    public var totals: [HKQuantity?] = []
    /// The day each of ``totals`` counts (today, or the last day with samples); nil with no total.
    public var totalDays: [Date?] = []
    /// Last night's sleep in hours by stage, in the order of ``SummaryReport/sleepStages``; without
    /// sleep last night, the last night with sleep (its day in ``sleepNight``); nil without sleep samples.
    public var sleepHours: [Double]?
    /// The day the night of ``sleepHours`` ends on (today for last night).
    public var sleepNight: Date?
    /// The newest heart rate, resting heart rate and weight samples, in the order of ``latestTypes``.
    public var latest: [HKQuantitySample?] = []
    /// The newest blood pressure reading (systolic and diastolic together).
    public var bloodPressure: HKCorrelation?
    /// Today's workouts, the earliest first.
    public var workouts: [HKWorkout] = []
    /// The trends of the types with enough data (the last 7 full days against the 4 weeks before).
    var trends: [TodayTrend] = []

    /// The types whose day totals the page shows: steps, walking and running distance, active energy, exercise minutes.
    public static let totalTypes: [HKQuantityType] = [
        HKQuantityType(.stepCount), HKQuantityType(.distanceWalkingRunning), HKQuantityType(.activeEnergyBurned), HKQuantityType(.appleExerciseTime),
    ]
    /// The types whose newest value the page shows: heart rate, resting heart rate, weight.
    public static let latestTypes: [HKQuantityType] = [HKQuantityType(.heartRate), HKQuantityType(.restingHeartRate), HKQuantityType(.bodyMass)]

    /// Runs the page's queries for the day of `now`.
    /// - Parameters:
    ///   - store: the store, opened as its owner.
    ///   - now: what "today" is.
    ///   - calendar: the calendar days are counted in.
    public static func load(from store: HKHealthStore, now: Date, calendar: Calendar) async throws -> TodayReport {
        let start = calendar.startOfDay(for: now)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        var report = TodayReport(day: DateInterval(start: start, end: end))
        for type in totalTypes {
            let total = try await TypeHeadline.dayTotal(type, in: store, now: now, calendar: calendar)
            report.totals.append(total?.sum)
            report.totalDays.append(total?.day)
        }
        let night = try await TypeHeadline.lastNight(in: store, now: now, calendar: calendar)
        report.sleepHours = night?.hours
        report.sleepNight = night?.night
        for type in latestTypes {
            report.latest.append(try await newest(.quantitySample(type: type), in: store))
        }
        report.bloodPressure = try await newest(.correlation(type: HKCorrelationType(.bloodPressure)), in: store)
        // Workouts that started today, read as an index range on their start (an overlap test
        // would visit every earlier workout).
        let startedToday = HKQuery.predicateForSamples(withStart: start, end: end, options: .strictStartDate)
        report.workouts = try await HKSampleQueryDescriptor(predicates: [.workout(startedToday)],
                                                            sortDescriptors: [SortDescriptor(\HKWorkout.startDate)]).result(for: store)
        let units = SampleText(units: try await store.preferredUnits(for: Set(HKObjectType.allSampleTypes.compactMap { $0 as? HKQuantityType })),
                               calendar: calendar)
        report.trends = try await TodayTrend.load(from: store, types: try await StoreCatalog.newestSamples(in: store).map(\.sampleType),
                                                  units: units, now: now)
        return report
    }

    static func newest<Sample: HKSample>(_ predicate: HKSamplePredicate<Sample>, in store: HKHealthStore) async throws -> Sample? {
        try await HKSampleQueryDescriptor(predicates: [predicate], sortDescriptors: [SortDescriptor(\Sample.startDate, order: .reverse)],
                                          limit: 1).result(for: store).first
    }
}
