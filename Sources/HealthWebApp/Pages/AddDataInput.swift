import CommonSupport
import Foundation
import HealthPresentation
import OpenHealthKit

/// Why an "Add data" form was refused; nothing was saved. Each case says, in words the person
/// reads on the form, what to change.
enum AddDataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The type cannot be added from the page (a food correlation, say).
    case notAddable(type: String)
    /// A field the type needs was left empty.
    case missing(field: String)
    /// A date and time that is not a calendar day and a time of day.
    case invalidDateTime(field: String, text: String)
    /// The end is before the start.
    case endBeforeStart
    /// The start lies more than a day ahead of now.
    case inTheFuture
    /// The sample would last longer than ``AddDataInput/longestSample``.
    case tooLong
    /// A value HealthPresentation refused (a bad number, a unit that does not fit).
    case invalidValue(String)
    /// A category value that is not one of the type's.
    case unknownCategoryValue(String, type: String)
    /// A workout activity that is not one of HealthKit's.
    case unknownActivity(String)
    /// The store refused the sample.
    case refusedByStore(String)

    var description: String {
        switch self {
        case .notAddable(let type): "\(type) cannot be added from this page"
        case .missing(let field): "\(field) is needed"
        case .invalidDateTime(let field, let text): "\(field) “\(text)” is not a date and time (year-month-day and hours:minutes)"
        case .endBeforeStart: "The end is before the start"
        case .inTheFuture: "The start is more than a day from now"
        case .tooLong: "A sample added here lasts at most 7 days"
        case .invalidValue(let reason): reason.prefix(1).uppercased() + reason.dropFirst()
        case .unknownCategoryValue(let value, let type): "“\(value)” is not one of the values of \(type)"
        case .unknownActivity(let name): "“\(name)” is not a workout activity"
        case .refusedByStore(let reason): "The store refused the sample: \(reason)"
        }
    }
}

/// What an "Add data" form can add for a type, and the form's fields read into a sample: a
/// quantity with its unit, a category value by name, a blood-pressure reading (a correlation of
/// systolic and diastolic), a workout with its energy and distance. Numbers and units are read by
/// HealthPresentation's `HealthInput` and `CategoryValues`, as `health store add` reads them.
enum AddDataInput {
    /// The kind of form a type gets.
    enum Kind: Equatable {
        case quantity(HKQuantityType)
        case category(HKCategoryType)
        case bloodPressure
        case workout
    }

    /// The longest sample the form adds.
    static let longestSample: TimeInterval = 7 * 86_400

    /// The form a type gets; nil for a type the page does not add (a food correlation).
    static func kind(of type: HKSampleType) -> Kind? {
        switch type {
        case let quantity as HKQuantityType: .quantity(quantity)
        case let category as HKCategoryType: .category(category)
        case let correlation as HKCorrelationType where correlation.identifier == HKCorrelationTypeIdentifier.bloodPressure.rawValue: .bloodPressure
        case is HKWorkoutType: .workout
        default: nil
        }
    }

    /// The activities a workout can have, by name.
    static let activities: [HKWorkoutActivityType] = HKWorkoutActivityType.allCases
        .filter { $0.name != "Unknown" }
        .sorted { $0.name < $1.name }

    /// The energy and distance units a workout's totals are typed in.
    static let energyUnits = ["kcal", "kJ"]
    static let distanceUnits = ["km", "mi", "m"]

    /// `2026-11-29T07:30` (what `<input type="datetime-local">` sends; seconds allowed, a space
    /// instead of the `T` too) as a date in `calendar`'s zone; nil for anything else.
    static func dateTime(_ text: String, calendar: Calendar) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let halves = trimmed.split(omittingEmptySubsequences: false) { $0 == "T" || $0 == " " }
        guard halves.count == 2 else { return nil }
        let day = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        let time = halves[1].split(separator: ":", omittingEmptySubsequences: false)
        func number(_ part: Substring, digits: ClosedRange<Int>) -> Int? {
            guard digits.contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(part)
        }
        guard day.count == 3, (2...3).contains(time.count),
              let year = number(day[0], digits: 4...4), let month = number(day[1], digits: 2...2), let dayOfMonth = number(day[2], digits: 2...2),
              let hour = number(time[0], digits: 2...2), let minute = number(time[1], digits: 2...2),
              (1900...2200).contains(year), (1...12).contains(month), (1...31).contains(dayOfMonth), hour < 24, minute < 60 else { return nil }
        var second = 0
        if time.count == 3 {
            // Seconds, optionally with a fraction the page ignores (`05.250`).
            let parts = time[2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard let whole = number(parts[0], digits: 2...2), whole < 60,
                  parts.count == 1 || (parts[1].count <= 3 && number(parts[1], digits: 1...3) != nil) else { return nil }
            second = whole
        }
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: dayOfMonth, hour: hour, minute: minute, second: second)),
              calendar.component(.day, from: date) == dayOfMonth, calendar.component(.month, from: date) == month else { return nil }
        return date
    }

    /// A date as the form's `datetime-local` fields show it: `2026-11-29T07:30`.
    static func fieldText(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return ISODateText.string(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0, hour: parts.hour ?? 0, minute: parts.minute ?? 0)
    }

    /// The sample a filled-in form describes.
    /// - Parameters:
    ///   - kind: the form's kind.
    ///   - form: the form's fields (`value`, `unit`, `systolic`, `diastolic`, `activity`, `energy`,
    ///     `energyUnit`, `distance`, `distanceUnit`, `start`, `end`).
    ///   - formatter: the person's units (a quantity without a unit is read in them).
    ///   - calendar: the zone the dates are typed in.
    ///   - now: what "now" is (a start more than a day after it is refused).
    /// - Throws: ``AddDataError``, saying what to change.
    static func sample(_ kind: Kind, form: FormFields, formatter: HealthFormatter, calendar: Calendar,
                       now: Date) throws(AddDataError) -> HKSample {
        func field(_ name: String) -> String? {
            let value = form[name]?.trimmingCharacters(in: .whitespacesAndNewlines)
            return value?.isEmpty == false ? value : nil
        }
        guard let startText = field("start") else { throw .missing(field: "The start") }
        guard let start = dateTime(startText, calendar: calendar) else { throw .invalidDateTime(field: "The start", text: startText) }
        var end = start
        if let endText = field("end") {
            guard let date = dateTime(endText, calendar: calendar) else { throw .invalidDateTime(field: "The end", text: endText) }
            end = date
        }
        guard end >= start else { throw .endBeforeStart }
        guard start.timeIntervalSince(now) <= 86_400 else { throw .inTheFuture }
        guard end.timeIntervalSince(start) <= longestSample else { throw .tooLong }
        switch kind {
        case .quantity(let type):
            guard let value = field("value") else { throw .missing(field: "The value") }
            do throws(HealthPresentationError) {
                let quantity = try HealthInput.quantity(value, unit: field("unit"), for: type, formatter: formatter)
                guard quantity.doubleValue(for: type.defaultDisplayUnit).isFinite else { throw HealthPresentationError.invalidNumber(value) }
                return HKQuantitySample(type: type, quantity: quantity, start: start, end: end)
            } catch {
                throw .invalidValue(error.description)
            }
        case .category(let type):
            let raw: Int
            if let value = field("value") {
                do {
                    raw = try CategoryValues.value(value, for: type)
                } catch {
                    throw .unknownCategoryValue(value, type: SampleText.name(of: type))
                }
            } else if CategoryValues.isValueless(type) {
                raw = HKCategoryValue.notApplicable.rawValue
            } else {
                throw .missing(field: "The value")
            }
            return HKCategorySample(type: type, value: raw, start: start, end: end)
        case .bloodPressure:
            guard let systolic = field("systolic") else { throw .missing(field: "The systolic pressure") }
            guard let diastolic = field("diastolic") else { throw .missing(field: "The diastolic pressure") }
            let reading: (systolic: HKQuantity, diastolic: HKQuantity)
            do {
                reading = try HealthInput.bloodPressure("\(systolic)/\(diastolic)")
            } catch {
                throw .invalidValue("a blood pressure is two numbers in mmHg, the systolic at least the diastolic (120 and 80)")
            }
            let objects: Set<HKSample> = [
                HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic), quantity: reading.systolic, start: start, end: end),
                HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic), quantity: reading.diastolic, start: start, end: end),
            ]
            return HKCorrelation(type: HKCorrelationType(.bloodPressure), start: start, end: end, objects: objects)
        case .workout:
            guard let name = field("activity") else { throw .missing(field: "The activity") }
            guard let activity = HKWorkoutActivityType(name: name) else { throw .unknownActivity(name) }
            guard end > start else { throw .missing(field: "An end after the start") }
            let energy = try total(field("energy"), unit: field("energyUnit") ?? "kcal", allowed: energyUnits,
                                   type: HKQuantityType(.activeEnergyBurned))
            let distance = try total(field("distance"), unit: field("distanceUnit") ?? "km", allowed: distanceUnits,
                                     type: HKQuantityType(.distanceWalkingRunning))
            return HKWorkout(activityType: activity, start: start, end: end, workoutEvents: nil,
                             totalEnergyBurned: energy, totalDistance: distance, metadata: nil)
        }
    }

    /// A workout's total (energy or distance) typed as a number in one of `allowed` units; nil when empty.
    private static func total(_ text: String?, unit: String, allowed: [String], type: HKQuantityType) throws(AddDataError) -> HKQuantity? {
        guard let text else { return nil }
        guard allowed.contains(unit) else { throw .invalidValue("\(unit) is not one of the units \(allowed.joined(separator: ", "))") }
        do throws(HealthPresentationError) {
            let quantity = try HealthInput.quantity(text, unit: unit, for: type)
            guard quantity.doubleValue(for: type.defaultDisplayUnit) >= 0 else { throw HealthPresentationError.invalidNumber(text) }
            return quantity
        } catch {
            throw .invalidValue(error.description)
        }
    }
}
