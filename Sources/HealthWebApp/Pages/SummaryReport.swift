import Foundation
import OpenHealthKit

/// The numbers of the Summary page for a period, read through the public OpenHealthKit API, a
/// point per bar of the period (an hour of a day, a day of a week or a month, a month of a year):
/// steps (sum), heart rate (range and average), weight, blood pressure, and sleep by stage (per
/// night; a year: the average night of each month), in the person's units.
public struct SummaryReport: Sendable {
    /// The period shown.
    public let period: SummaryPeriod
    /// Its span.
    public let interval: DateInterval
    /// Steps per bar (sum, merged by source priority).
    public var steps: [ChartPoint] = []
    /// Heart rate per bar: ``ChartPoint/low`` the lowest, ``ChartPoint/high`` the highest,
    /// ``ChartPoint/value`` the average.
    public var heartRate: [ChartPoint] = []
    /// Average weight per bar, in ``weightUnit``.
    public var weight: [ChartPoint] = []
    /// The unit of ``weight`` (the person's preferred unit).
    public var weightUnit: HKUnit = .gramUnit(with: .kilo)
    /// Blood pressure per bar: ``ChartPoint/low`` the average diastolic, ``ChartPoint/high`` the average systolic (mmHg).
    public var bloodPressure: [ChartPoint] = []
    /// Sleep in hours by stage, in the order of ``sleepStages``: per night (a year: the average
    /// night of each month), overlapping sources counted once.
    public var sleep: [ChartPoint] = []

    /// The sleep stages of ``sleep``'s segments, bottom first.
    public static var sleepStages: [(name: String, values: Set<Int>)] { SummarySleep.stages }

    /// Runs the page's queries.
    /// - Parameters:
    ///   - store: the store, opened as its owner.
    ///   - period: the period.
    ///   - now: the period's last day.
    ///   - calendar: the calendar days and months are counted in.
    public static func load(from store: HKHealthStore, period: SummaryPeriod, now: Date, calendar: Calendar) async throws -> SummaryReport {
        let interval = period.interval(endingAt: now, calendar: calendar)
        var report = SummaryReport(period: period, interval: interval)
        let text = SampleText(units: [:], calendar: calendar)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let mmHg = HKUnit.millimeterOfMercury()
        let bodyMass = HKQuantityType(.bodyMass)
        report.weightUnit = try await store.preferredUnits(for: [bodyMass])[bodyMass] ?? bodyMass.defaultDisplayUnit

        let steps = try await collection(store, .stepCount, .cumulativeSum, period, interval)
        let heart = try await collection(store, .heartRate, [.discreteAverage, .discreteMin, .discreteMax], period, interval)
        let weight = try await collection(store, .bodyMass, .discreteAverage, period, interval)
        let systolic = try await collection(store, .bloodPressureSystolic, .discreteAverage, period, interval)
        let diastolic = try await collection(store, .bloodPressureDiastolic, .discreteAverage, period, interval)
        let sleep = try await sleepPoints(store, period: period, interval: interval, text: text)

        for start in period.bucketStarts(of: interval, calendar: calendar) {
            let label = period.bucketLabel(start, text: text)
            report.steps.append(ChartPoint(label: label, value: steps.statistics(for: start)?.sumQuantity()?.doubleValue(for: .count())))
            let rates = heart.statistics(for: start)
            report.heartRate.append(ChartPoint(label: label, value: rates?.averageQuantity()?.doubleValue(for: bpm),
                                               low: rates?.minimumQuantity()?.doubleValue(for: bpm),
                                               high: rates?.maximumQuantity()?.doubleValue(for: bpm)))
            report.weight.append(ChartPoint(label: label, value: weight.statistics(for: start)?.averageQuantity()?.doubleValue(for: report.weightUnit)))
            report.bloodPressure.append(ChartPoint(label: label, value: nil,
                                                   low: diastolic.statistics(for: start)?.averageQuantity()?.doubleValue(for: mmHg),
                                                   high: systolic.statistics(for: start)?.averageQuantity()?.doubleValue(for: mmHg)))
        }
        report.sleep = sleep
        return report
    }

    /// One statistics query over the period, a value per bar (what the summary's numbers come from).
    static func collection(_ store: HKHealthStore, _ identifier: HKQuantityTypeIdentifier, _ options: HKStatisticsOptions,
                           _ period: SummaryPeriod, _ interval: DateInterval) async throws -> HKStatisticsCollection {
        try await collection(store, HKQuantityType(identifier), options, period, interval)
    }

    /// One statistics query of `type` over the period, a value per bar.
    static func collection(_ store: HKHealthStore, _ type: HKQuantityType, _ options: HKStatisticsOptions,
                           _ period: SummaryPeriod, _ interval: DateInterval) async throws -> HKStatisticsCollection {
        try await HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: type, predicate: HKQuery.predicateForSamples(withStart: interval.start, end: interval.end)),
            options: options, anchorDate: interval.start, intervalComponents: period.bucket).result(for: store)
    }

    /// Sleep by stage: a point per night of the period's days (a day: its one night), or for a
    /// year a point per month, the average of its nights with sleep.
    static func sleepPoints(_ store: HKHealthStore, period: SummaryPeriod, interval: DateInterval, text: SampleText) async throws -> [ChartPoint] {
        let calendar = text.calendar
        let nights = try await SummarySleep.nights(store, interval, calendar)
        guard period == .year else {
            let days = SummaryPeriod.week.bucketStarts(of: interval, calendar: calendar)
            return days.map { ChartPoint(label: text.day($0), value: nil, segments: nights[$0] ?? []) }
        }
        return period.bucketStarts(of: interval, calendar: calendar).map { month in
            let end = calendar.date(byAdding: .month, value: 1, to: month) ?? interval.end
            let inMonth = nights.filter { $0.key >= month && $0.key < end }.map(\.value)
            guard !inMonth.isEmpty else { return ChartPoint(label: period.bucketLabel(month, text: text), value: nil) }
            let average = sleepStages.indices.map { stage in inMonth.map { $0[stage] }.reduce(0, +) / Double(inMonth.count) }
            return ChartPoint(label: period.bucketLabel(month, text: text), value: nil, segments: average)
        }
    }

    /// Hours of sleep per stage for each night, keyed by the day the night ends, overlapping
    /// sources counted once (``SummarySleep``).
    static func sleepByNight(_ store: HKHealthStore, _ interval: DateInterval, _ calendar: Calendar) async throws -> [Date: [Double]] {
        try await SummarySleep.nights(store, interval, calendar)
    }
}
