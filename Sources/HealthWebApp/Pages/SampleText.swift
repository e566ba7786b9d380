import Foundation
import HealthPresentation
import OpenHealthKit

/// How the page writes values and dates, in `HealthFormatter`'s words (the CLI's too):
/// quantities in the person's units to each type's precision (`72 bpm`, `8,412 steps`), category
/// values by name (`Core sleep 47 min`), blood pressure as `120/80 mmHg`, workouts by activity
/// and length, dates in local time with the zone.
struct SampleText: Sendable {
    let units: [HKQuantityType: HKUnit]
    let calendar: Calendar
    /// The formatter for these units and the calendar's zone.
    let formatter: HealthFormatter

    init(units: [HKQuantityType: HKUnit], calendar: Calendar) {
        self.units = units
        self.calendar = calendar
        self.formatter = HealthFormatter(units: units, timeZone: calendar.timeZone)
    }

    func value(of sample: HKSample) -> String {
        formatter.value(of: sample)
    }

    /// A date and time with the zone: `2026-11-20 08:30 UTC` (its first ten characters are the day).
    func date(_ date: Date) -> String {
        formatter.date(date)
    }

    /// A day's short label: "11-23".
    func day(_ date: Date) -> String {
        formatter.day(date)
    }

    /// A number in a summary table: whole from 100 up, else to 0.1; thousands grouped, never
    /// in exponent form.
    static func number(_ value: Double) -> String {
        NumberText.format(value, decimals: abs(value) >= 100 ? 0 : 1)
    }

    /// The name people use for a type (HealthPresentation's `HealthTypes.personName(of:)`, which
    /// the CLI shows too): "Weight", "Steps", "Heart Rate", "Blood Pressure".
    static func name(of type: HKSampleType) -> String {
        HealthTypes.personName(of: type)
    }

    static func duration(_ seconds: TimeInterval) -> String {
        HealthFormatter.duration(seconds)
    }
}
