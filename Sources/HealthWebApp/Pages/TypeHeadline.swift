import Foundation
import HealthPresentation
import OpenHealthKit

/// What the Health app shows for a type at a glance, computed once for Today and Browse: for a
/// type that adds up (steps), today's total with all sources merged, or, while today has no
/// samples yet, the total of the last day with samples, labelled with that day; for sleep, last
/// night's time asleep (or the last night with sleep, labelled); for blood pressure the latest
/// reading as one value; for any other type its latest value.
struct TypeHeadline: Sendable {
    /// The value as the page writes it: "8,412 steps", "7 h 12 min", "72 bpm", "120/80 mmHg".
    let value: String
    /// The number, in the unit shown (hours for sleep); nil for blood pressure and category values.
    let number: Double?
    /// When the value is from: "Today", "Yesterday" or the day for a total; "Last night" or
    /// "Night ending …" for sleep; the sample's date and time for a latest value.
    let when: String
    /// The day of a total or a night; nil for a latest value.
    let day: Date?

    /// A cumulative type's total for a day, all sources merged by priority (one statistics query):
    /// today's when today has samples (a total of 0 too), otherwise the day of the newest sample
    /// that starts before today. Nil when the type has no sample before the end of today.
    static func dayTotal(_ type: HKQuantityType, in store: HKHealthStore, now: Date,
                         calendar: Calendar) async throws -> (day: Date, sum: HKQuantity)? {
        let today = calendar.startOfDay(for: now)
        if let sum = try await total(type, on: today, in: store, calendar: calendar) { return (today, sum) }
        let before = HKQuery.predicateForSamples(withStart: nil, end: today, options: .strictStartDate)
        guard let newest = try await TodayReport.newest(.quantitySample(type: type, predicate: before), in: store) else { return nil }
        let day = calendar.startOfDay(for: newest.startDate)
        return try await total(type, on: day, in: store, calendar: calendar).map { (day, $0) }
    }

    /// Last night's hours of sleep by stage (``SummarySleep``), or, without sleep last night, the
    /// last night with sleep; keyed by the day the night ends. Nil without any sleep.
    static func lastNight(in store: HKHealthStore, now: Date, calendar: Calendar) async throws -> (night: Date, hours: [Double])? {
        let today = calendar.startOfDay(for: now)
        if let hours = try await SummarySleep.nights(store, DateInterval(start: today, end: nextDay(today, calendar)), calendar)[today] {
            return (today, hours)
        }
        let asleep = NSCompoundPredicate(andPredicateWithSubpredicates: [
            HKQuery.predicateForSamples(withStart: nil, end: today.addingTimeInterval(-SummarySleep.shift), options: .strictStartDate),
            HKCategoryValueSleepAnalysis.predicateForSamples(equalTo: HKCategoryValueSleepAnalysis.allAsleepValues),
        ])
        guard let newest = try await TodayReport.newest(.categorySample(type: HKCategoryType(.sleepAnalysis), predicate: asleep), in: store) else {
            return nil
        }
        let night = calendar.startOfDay(for: newest.startDate.addingTimeInterval(SummarySleep.shift))
        return try await SummarySleep.nights(store, DateInterval(start: night, end: nextDay(night, calendar)), calendar)[night].map { (night, $0) }
    }

    /// The hours asleep of a night's stages (every stage but Awake).
    static func asleep(_ hours: [Double]) -> Double {
        zip(SummarySleep.stages, hours).filter { $0.0.name != "Awake" }.map(\.1).reduce(0, +)
    }

    /// A day's label: "Today", "Yesterday", or the day ("2025-11-20").
    static func dayLabel(_ day: Date, now: Date, text: SampleText) -> String {
        let today = text.calendar.startOfDay(for: now)
        if day == today { return "Today" }
        if let yesterday = text.calendar.date(byAdding: .day, value: -1, to: today), day == yesterday { return "Yesterday" }
        return String(text.date(day).prefix(10))
    }

    /// A night's label: "Last night" for the night ending today, else "Night ending" the day it ends.
    static func nightLabel(_ night: Date, now: Date, text: SampleText) -> String {
        night == text.calendar.startOfDay(for: now) ? "Last night" : "Night ending \(text.date(night).prefix(10))"
    }

    /// The headline of `type`, whose newest sample is `newest`: a day's total, a night's sleep or
    /// the latest value, as ``TypeHeadline`` says.
    static func load(_ type: HKSampleType, newest: HKSample, in store: HKHealthStore, now: Date, text: SampleText) async throws -> TypeHeadline {
        if let quantityType = type as? HKQuantityType, quantityType.aggregationStyle == .cumulative,
           let total = try await dayTotal(quantityType, in: store, now: now, calendar: text.calendar) {
            let unit = text.formatter.displayUnit(for: quantityType)
            return TypeHeadline(value: text.formatter.quantity(total.sum, of: quantityType), number: HealthFormatter.personNumber(total.sum, unit: unit),
                                when: dayLabel(total.day, now: now, text: text), day: total.day)
        }
        if type.identifier == HKCategoryTypeIdentifier.sleepAnalysis.rawValue,
           let night = try await lastNight(in: store, now: now, calendar: text.calendar) {
            let hours = asleep(night.hours)
            return TypeHeadline(value: SampleText.duration(hours * 3600), number: hours, when: nightLabel(night.night, now: now, text: text),
                                day: night.night)
        }
        let number = (newest as? HKQuantitySample).map { HealthFormatter.personNumber($0.quantity, unit: text.formatter.displayUnit(for: $0.quantityType)) }
        return TypeHeadline(value: text.value(of: newest), number: number, when: text.date(newest.startDate), day: nil)
    }

    private static func total(_ type: HKQuantityType, on day: Date, in store: HKHealthStore, calendar: Calendar) async throws -> HKQuantity? {
        let range = HKQuery.predicateForSamples(withStart: day, end: nextDay(day, calendar))
        return try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: type, predicate: range), options: .cumulativeSum)
            .result(for: store)?.sumQuantity()
    }

    private static func nextDay(_ day: Date, _ calendar: Calendar) -> Date {
        calendar.date(byAdding: .day, value: 1, to: day) ?? day.addingTimeInterval(86_400)
    }
}
