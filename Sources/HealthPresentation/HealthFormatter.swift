import Foundation
import OpenHealthKit

/// How values and dates are written for a person, the same on the command line and on the web
/// page: `72 bpm`, `8,412 steps`, `Core sleep 47 min`, `120/80 mmHg`, `70.5 kg`, each type to
/// the precision the Health app shows it, in the person's units, and dates in local time with
/// the zone shown.
public struct HealthFormatter: Sendable {
    /// The units the person chose, per type (`HKHealthStore.preferredUnits(for:)`); a type
    /// without one is shown in ``defaultUnit(for:)``.
    public var units: [HKQuantityType: HKUnit]
    /// The zone dates are written in.
    public var timeZone: TimeZone {
        didSet { calendar.timeZone = timeZone }
    }
    /// The Gregorian calendar in ``timeZone``, made once (a table formats a date per row).
    private var calendar: Calendar

    /// A formatter in the current zone without unit choices, made once.
    public static let local = HealthFormatter()

    /// A formatter.
    /// - Parameters:
    ///   - units: The units the person chose, per type.
    ///   - timeZone: The zone dates are written in (default: the current one).
    public init(units: [HKQuantityType: HKUnit] = [:], timeZone: TimeZone = .current) {
        self.units = units
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    // MARK: Units and precision

    /// The unit a type is shown in without a choice: the type's `HKQuantityType.defaultDisplayUnit`,
    /// except kilometres for distances and centimetres for height and waist (stored in metres).
    public static func defaultUnit(for type: HKQuantityType) -> HKUnit {
        let unit = type.defaultDisplayUnit
        guard unit == .meter() else { return unit }
        switch type.identifier {
        case HKQuantityTypeIdentifier.height.rawValue, HKQuantityTypeIdentifier.waistCircumference.rawValue:
            return .meterUnit(with: .centi)
        case let identifier where identifier.hasPrefix("HKQuantityTypeIdentifierDistance"):
            return .meterUnit(with: .kilo)
        default:
            return unit
        }
    }

    /// The unit `type` is shown in: the person's choice, else ``defaultUnit(for:)``. A choice
    /// equal to the type's `HKQuantityType.defaultDisplayUnit` is no choice (the store answers
    /// it for every type nobody chose for).
    public func displayUnit(for type: HKQuantityType) -> HKUnit {
        if let chosen = units[type], chosen != type.defaultDisplayUnit, type.is(compatibleWith: chosen) { return chosen }
        return Self.defaultUnit(for: type)
    }

    /// The number a person reads for a quantity in `unit`: the value, and for `%` the percent
    /// points (HealthKit keeps 0.2 for 20 %).
    public static func personNumber(_ quantity: HKQuantity, unit: HKUnit) -> Double {
        let value = quantity.doubleValue(for: unit)
        return unit == .percent() ? value * 100 : value
    }

    /// The quantity a number a person wrote in `unit` stands for (the inverse of ``personNumber(_:unit:)``).
    public static func quantity(personNumber number: Double, unit: HKUnit) -> HKQuantity {
        HKQuantity(unit: unit, doubleValue: unit == .percent() ? number / 100 : number)
    }

    /// How many decimals a value of `type` shows in `unit`, as the Health app shows it: weight
    /// 0.1, heart rate and steps whole, glucose whole in mg/dL and 0.1 in mmol/L, temperature
    /// 0.1, distances in km or mi 0.01; a type without a rule shows three significant digits
    /// of `number`.
    public static func decimals(for type: HKQuantityType, unit: HKUnit, number: Double) -> Int {
        let id = type.identifier
        if unit == .count() {
            if id == HKQuantityTypeIdentifier.bodyMassIndex.rawValue { return 1 }
            if !HealthUnits.countWord(for: type).isEmpty { return 0 }
        }
        if unit == .percent() {
            return id == HKQuantityTypeIdentifier.oxygenSaturation.rawValue ? 0 : 1
        }
        if HealthUnits.molarMass(for: type) != nil, HealthUnits.label(for: unit, type: type) == "mmol/L" { return 1 }
        let byUnit: [String: Int] = [
            "count/min": 0, "kg": 1, "lb": 1, "st": 1, "mg/dL": 0, "degC": 1, "degF": 1, "mmHg": 0, "cm": 0, "in": 0,
            "km": 2, "mi": 2, "kcal": 0, "kJ": 0, "min": 0, "ms": 0, "mL": 0,
        ]
        if let decimals = byUnit[unit.unitString], abs(number) >= 1 || decimals > 0 { return max(decimals, 0) }
        return NumberText.significantDecimals(number)
    }

    // MARK: Values

    /// A quantity as a person reads it: `72 bpm`, `8,412 steps`, `70.5 kg`, `5.4 mmol/L`,
    /// `20.5 %`, `22.4` (a BMI); in `unit` when given, else in ``displayUnit(for:)``.
    public func quantity(_ quantity: HKQuantity, of type: HKQuantityType, unit: HKUnit? = nil) -> String {
        let shown = unit.flatMap { quantity.is(compatibleWith: $0) ? $0 : nil } ?? displayUnit(for: type)
        let number = Self.personNumber(quantity, unit: shown)
        let text = NumberText.format(number, decimals: Self.decimals(for: type, unit: shown, number: number))
        let label = HealthUnits.label(for: shown, type: type)
        return label.isEmpty ? text : "\(text) \(label)"
    }

    /// A sample's value as a person reads it: a quantity (``quantity(_:of:unit:)``), a category
    /// value by name with its length (`Core sleep 47 min`), a blood pressure (`120/80 mmHg`),
    /// a workout (`Running 40 min, 420 kcal, 6.5 km`), a state of mind, an assessment's score
    /// and risk, an ECG, an audiogram, a vision prescription, a heartbeat series or a medication
    /// dose in words (`Daily Mood: Slightly Pleasant`, `GAD-7 score 7 of 21: mild anxiety risk`).
    /// - Parameters:
    ///   - sample: The sample.
    ///   - unit: The unit quantities are shown in, instead of the person's.
    public func value(of sample: HKSample, unit: HKUnit? = nil) -> String {
        switch sample {
        case let quantity as HKQuantitySample:
            return self.quantity(quantity.quantity, of: quantity.quantityType, unit: unit)
        case let category as HKCategorySample:
            let length = category.endDate.timeIntervalSince(category.startDate)
            let type = category.categoryType
            if CategoryValues.isValueless(type) {
                return length > 0 ? Self.duration(length) : CategoryValues.label(of: category.value, for: type)
            }
            let label = CategoryValues.label(of: category.value, for: type)
            return length > 0 ? "\(label) \(Self.duration(length))" : label
        case let correlation as HKCorrelation:
            if let pressure = Self.bloodPressure(correlation) {
                return "\(NumberText.format(pressure.systolic, decimals: 0))/\(NumberText.format(pressure.diastolic, decimals: 0)) mmHg"
            }
            return correlation.objects.sorted { $0.sampleType.identifier < $1.sampleType.identifier }
                .map { "\($0.sampleType.displayName) \(value(of: $0))" }.joined(separator: ", ")
        case let workout as HKWorkout:
            var parts = ["\(workout.workoutActivityType.name) \(Self.duration(workout.duration))"]
            if let energy = workout.totalEnergyBurned {
                parts.append(quantity(energy, of: HKQuantityType(.activeEnergyBurned)))
            }
            if let distance = workout.totalDistance {
                parts.append(quantity(distance, of: HKQuantityType(.distanceWalkingRunning)))
            }
            return parts.joined(separator: ", ")
        default:
            return measurementValue(of: sample) ?? ""
        }
    }

    /// A blood-pressure correlation's two values in mmHg, or nil for another correlation.
    public static func bloodPressure(_ correlation: HKCorrelation) -> (systolic: Double, diastolic: Double)? {
        let mmHg = HKUnit.millimeterOfMercury()
        guard let systolic = correlation.objects(for: HKQuantityType(.bloodPressureSystolic)).first as? HKQuantitySample,
              let diastolic = correlation.objects(for: HKQuantityType(.bloodPressureDiastolic)).first as? HKQuantitySample else {
            return nil
        }
        return (systolic.quantity.doubleValue(for: mmHg), diastolic.quantity.doubleValue(for: mmHg))
    }

    /// A length of time: `47 min`, `7 h 12 min`, `30 s`. A length of more minutes than an `Int`
    /// holds (a workout imported with `duration="1e300"`) is written in whole hours: converted to
    /// `Int`, it trapped `health store query` and `health ui`.
    public static func duration(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite else { return "" }
        if seconds > 0, seconds < 59.5 { return "\(Int(seconds.rounded())) s" }
        guard let minutes = Int(exactly: (seconds / 60).rounded()) else {
            return "\(NumberText.format(seconds / 3600, decimals: 0)) h"
        }
        return minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
    }

    /// A number a source wrote (a lab value), to the precision it was written with but not the
    /// noise of binary fractions: `15.6`, `120`, `12345.6`, `1.0235`, `15.61` for 15.605116822620527
    /// (``NumberText/written(_:significantDigits:grouping:)``).
    public static func writtenNumber(_ value: Double) -> String {
        NumberText.written(value)
    }

    // MARK: Dates

    /// The zone's name at `date` as a person reads it: `UTC`, `CET`, `EST`, else its offset
    /// (`UTC+1`, `UTC+5:30`).
    public func zoneName(at date: Date) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        if offset == 0, ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "Universal", "Zulu"].contains(timeZone.identifier) { return "UTC" }
        if let abbreviation = timeZone.abbreviation(for: date), (2...5).contains(abbreviation.count),
           abbreviation.allSatisfy({ $0.isLetter && $0.isUppercase }), !abbreviation.hasPrefix("GMT") {
            return abbreviation
        }
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        return minutes % 60 == 0 ? "UTC\(sign)\(minutes / 60)" : "UTC\(sign)\(minutes / 60):\(Self.pad(minutes % 60, 2))"
    }

    /// A date and time in local time to the minute, without the zone: `2026-11-20 08:30`.
    public func localDateTime(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return "\(Self.pad(parts.year ?? 0, 4))-\(Self.pad(parts.month ?? 0, 2))-\(Self.pad(parts.day ?? 0, 2)) "
            + "\(Self.pad(parts.hour ?? 0, 2)):\(Self.pad(parts.minute ?? 0, 2))"
    }

    /// A date and time in local time with the zone: `2026-11-20 08:30 UTC`.
    public func date(_ date: Date) -> String {
        "\(localDateTime(date)) \(zoneName(at: date))"
    }

    /// When a sample happened: `2026-11-20 08:30 UTC` for an instant or within one minute (as the
    /// Health app shows a 30-second ECG), `2026-11-20 08:00–09:00 UTC` within a day,
    /// `2026-11-20 23:10 – 2026-11-21 06:40 UTC` across days.
    public func span(from start: Date, to end: Date) -> String {
        if start == end { return date(start) }
        let first = localDateTime(start)
        let last = localDateTime(end)
        let zone = zoneName(at: end)
        if first == last, zoneName(at: start) == zone { return "\(first) \(zone)" }
        if first.prefix(10) == last.prefix(10), zoneName(at: start) == zone { return "\(first)–\(last.dropFirst(11)) \(zone)" }
        return "\(first) – \(last) \(zone)"
    }

    /// A day's short label: `11-23`.
    public func day(_ date: Date) -> String {
        let parts = calendar.dateComponents([.month, .day], from: date)
        return "\(Self.pad(parts.month ?? 0, 2))-\(Self.pad(parts.day ?? 0, 2))"
    }

    // MARK: Tables

    /// Rows as lines with aligned columns, two spaces apart; the columns in `rightAligned`
    /// (numbers) are aligned on the right. No line ends in spaces.
    public static func columns(_ rows: [[String]], rightAligned: Set<Int> = []) -> [String] {
        let count = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                if index > 0 { line += "  " }
                line += rightAligned.contains(index) ? padding + cell : cell + padding
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
