import Foundation
import OpenHealthKit

/// The numbers of the Summary page for a period, read through the public OpenHealthKit API:
/// steps per day, heart rate per day (range and average), weight per day, blood pressure per day,
/// sleep per night by stage, in the person's units.
public struct SummaryReport: Sendable {
    /// The period shown.
    public let period: SummaryPeriod
    /// Its days.
    public let interval: DateInterval
    /// Steps per day (sum, merged by source priority), one point per day.
    public var steps: [ChartPoint] = []
    /// Heart rate per day: ``ChartPoint/low`` the lowest, ``ChartPoint/high`` the highest,
    /// ``ChartPoint/value`` the average.
    public var heartRate: [ChartPoint] = []
    /// Average weight per day, in ``weightUnit``.
    public var weight: [ChartPoint] = []
    /// The unit of ``weight`` (the person's preferred unit).
    public var weightUnit: HKUnit = .gramUnit(with: .kilo)
    /// Blood pressure per day: ``ChartPoint/low`` the average diastolic, ``ChartPoint/high`` the average systolic (mmHg).
    public var bloodPressure: [ChartPoint] = []
    /// Sleep per night in hours by stage, in the order of ``sleepStages``.
    public var sleep: [ChartPoint] = []

    /// The sleep stages of ``sleep``'s segments, bottom first.
    public static let sleepStages: [(name: String, values: Set<Int>)] = [
        ("Core", [HKCategoryValueSleepAnalysis.asleepCore.rawValue]),
        ("Deep", [HKCategoryValueSleepAnalysis.asleepDeep.rawValue]),
        ("REM", [HKCategoryValueSleepAnalysis.asleepREM.rawValue]),
        ("Asleep", [HKCategoryValueSleepAnalysis.asleepUnspecified.rawValue]),
        ("Awake", [HKCategoryValueSleepAnalysis.awake.rawValue]),
    ]

    /// Runs the page's queries.
    public static func load(from store: HKHealthStore, period: SummaryPeriod, now: Date, calendar: Calendar) async throws -> SummaryReport {
        let interval = period.interval(endingAt: now, calendar: calendar)
        var report = SummaryReport(period: period, interval: interval)
        let text = SampleText(units: [:], calendar: calendar)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let mmHg = HKUnit.millimeterOfMercury()
        let bodyMass = HKQuantityType(.bodyMass)
        report.weightUnit = try await store.preferredUnits(for: [bodyMass])[bodyMass] ?? bodyMass.defaultDisplayUnit

        let steps = try await daily(store, .stepCount, .cumulativeSum, interval, calendar)
        let heart = try await daily(store, .heartRate, [.discreteAverage, .discreteMin, .discreteMax], interval, calendar)
        let weight = try await daily(store, .bodyMass, .discreteAverage, interval, calendar)
        let systolic = try await daily(store, .bloodPressureSystolic, .discreteAverage, interval, calendar)
        let diastolic = try await daily(store, .bloodPressureDiastolic, .discreteAverage, interval, calendar)
        let nights = try await sleepByNight(store, interval, calendar)

        var day = interval.start
        while day < interval.end {
            let label = text.day(day)
            let stepSum = steps.statistics(for: day)?.sumQuantity()?.doubleValue(for: .count())
            report.steps.append(ChartPoint(label: label, value: stepSum))
            let rates = heart.statistics(for: day)
            report.heartRate.append(ChartPoint(label: label, value: rates?.averageQuantity()?.doubleValue(for: bpm),
                                               low: rates?.minimumQuantity()?.doubleValue(for: bpm),
                                               high: rates?.maximumQuantity()?.doubleValue(for: bpm)))
            report.weight.append(ChartPoint(label: label, value: weight.statistics(for: day)?.averageQuantity()?.doubleValue(for: report.weightUnit)))
            report.bloodPressure.append(ChartPoint(label: label, value: nil,
                                                   low: diastolic.statistics(for: day)?.averageQuantity()?.doubleValue(for: mmHg),
                                                   high: systolic.statistics(for: day)?.averageQuantity()?.doubleValue(for: mmHg)))
            report.sleep.append(ChartPoint(label: label, value: nil, segments: nights[day] ?? []))
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
            day = next
        }
        return report
    }

    /// One statistics query per day of the period (what the summary's numbers come from).
    static func daily(_ store: HKHealthStore, _ identifier: HKQuantityTypeIdentifier, _ options: HKStatisticsOptions,
                      _ interval: DateInterval, _ calendar: Calendar) async throws -> HKStatisticsCollection {
        try await HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: HKQuantityType(identifier),
                                       predicate: HKQuery.predicateForSamples(withStart: interval.start, end: interval.end)),
            options: options, anchorDate: interval.start, intervalComponents: DateComponents(day: 1)).result(for: store)
    }

    /// Hours of sleep per stage for each night, keyed by the day the night ends (a sample belongs
    /// to the day of its start plus six hours: 23:00 on Monday counts for Tuesday's night). The
    /// samples are read by their start, an index range, not by overlap, which would visit every
    /// earlier night.
    static func sleepByNight(_ store: HKHealthStore, _ interval: DateInterval, _ calendar: Calendar) async throws -> [Date: [Double]] {
        let shift: TimeInterval = 6 * 3600
        let samples = try await HKSampleQueryDescriptor(
            predicates: [.categorySample(type: HKCategoryType(.sleepAnalysis),
                                         predicate: HKQuery.predicateForSamples(withStart: interval.start.addingTimeInterval(-shift),
                                                                                end: interval.end.addingTimeInterval(-shift),
                                                                                options: .strictStartDate))],
            sortDescriptors: []).result(for: store)
        var nights: [Date: [Double]] = [:]
        for sample in samples {
            guard let stage = sleepStages.firstIndex(where: { $0.values.contains(sample.value) }) else { continue }
            let night = calendar.startOfDay(for: sample.startDate.addingTimeInterval(shift))
            guard interval.contains(night), night < interval.end else { continue }
            var hours = nights[night] ?? Array(repeating: 0, count: sleepStages.count)
            hours[stage] += sample.endDate.timeIntervalSince(sample.startDate) / 3600
            nights[night] = hours
        }
        return nights
    }
}
