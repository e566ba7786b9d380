import Foundation
import OpenHealthKit

/// The units people type and read: `bpm`, `steps`, `kg`, `lb`, `st`, `mmol/L`, `mg/dL`, `°C`,
/// `°F`, `%`, `km`, `mi`, `kcal`, `kJ`… beside HealthKit's unit strings, and the words a
/// value is shown with.
public enum HealthUnits {
    /// The everyday words for units and the HealthKit unit string each means. A word is read as
    /// written, else as HealthKit reads it, else without regard to case (people write `mmol/l`,
    /// `KG`, `Kcal`): where case matters to HealthKit (`S` and `s`, `Cal` and `cal`, `ML` and
    /// `mL`), HealthKit's reading wins.
    /// `mmol/L` is not here: it takes the molar mass of the type it measures (``unit(_:for:)``).
    public static let aliases: [(word: String, unitString: String)] = [
        ("bpm", "count/min"), ("beats/min", "count/min"), ("breaths/min", "count/min"),
        ("steps", "count"), ("step", "count"), ("floors", "count"), ("flights", "count"), ("pushes", "count"),
        ("strokes", "count"), ("falls", "count"), ("drinks", "count"), ("puffs", "count"), ("times", "count"), ("count", "count"),
        ("kg", "kg"), ("kgs", "kg"), ("kilograms", "kg"), ("g", "g"), ("mg", "mg"), ("mcg", "mcg"), ("µg", "mcg"),
        ("lb", "lb"), ("lbs", "lb"), ("pounds", "lb"), ("st", "st"), ("stone", "st"), ("oz", "oz"),
        ("mg/dl", "mg/dL"),
        ("°c", "degC"), ("degc", "degC"), ("℃", "degC"), ("celsius", "degC"),
        ("°f", "degF"), ("degf", "degF"), ("℉", "degF"), ("fahrenheit", "degF"),
        ("%", "%"), ("percent", "%"),
        ("m", "m"), ("cm", "cm"), ("mm", "mm"), ("km", "km"), ("mi", "mi"), ("miles", "mi"), ("ft", "ft"), ("in", "in"), ("yd", "yd"),
        ("kcal", "kcal"), ("kj", "kJ"),
        ("mmhg", "mmHg"),
        ("s", "s"), ("sec", "s"), ("ms", "ms"), ("min", "min"), ("mins", "min"), ("minutes", "min"),
        ("h", "hr"), ("hr", "hr"), ("hours", "hr"),
        ("l", "L"), ("ml", "mL"), ("dl", "dL"),
        ("km/h", "km/hr"), ("kmh", "km/hr"), ("mph", "mi/hr"),
    ]

    /// The molar mass a type's mole units take: glucose's for blood glucose
    /// (`HKUnitMolarMassBloodGlucose`), none for the others.
    public static func molarMass(for type: HKQuantityType?) -> Double? {
        type?.identifier == HKQuantityTypeIdentifier.bloodGlucose.rawValue ? HKUnitMolarMassBloodGlucose : nil
    }

    /// The unit a person typed, for `type` when given: an everyday word, else a HealthKit unit
    /// string. `mmol/L` is millimoles of glucose per litre, for blood glucose or without a type
    /// (the one type HealthKit measures in moles); for another type it has no molar mass and fits none.
    /// - Throws: ``HealthPresentationError/unknownUnit(_:reason:)``, and
    ///   ``HealthPresentationError/unitDoesNotFit(unit:type:accepted:)`` when the unit does not
    ///   measure `type`.
    public static func unit(_ text: String, for type: HKQuantityType? = nil) throws(HealthPresentationError) -> HKUnit {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let key = trimmed.lowercased()
        let unit: HKUnit
        if key == "mmol/l", type == nil || molarMass(for: type) != nil {
            // Blood glucose is the one type HealthKit measures in moles: without a type, its molar mass.
            unit = HKUnit.moleUnit(with: .milli, molarMass: molarMass(for: type) ?? HKUnitMolarMassBloodGlucose).unitDivided(by: .liter())
        } else if let alias = aliases.first(where: { $0.word == trimmed }) {
            do { unit = try HKUnit.parse(alias.unitString) } catch { throw .unknownUnit(text, reason: "\(error)") }
        } else if let healthKit = try? HKUnit.parse(trimmed) {
            // HealthKit's own string, where case matters: `S` (siemens) is not `s`, `Cal` is not `cal`.
            unit = healthKit
        } else if let alias = aliases.first(where: { $0.word == key }) {
            do { unit = try HKUnit.parse(alias.unitString) } catch { throw .unknownUnit(text, reason: "\(error)") }
        } else {
            do {
                unit = try HKUnit.parse(trimmed)
            } catch {
                throw .unknownUnit(text, reason: "\(error)")
            }
        }
        if let type, !type.is(compatibleWith: unit) {
            throw .unitDoesNotFit(unit: trimmed, type: type.displayName, accepted: acceptedUnits(for: type))
        }
        return unit
    }

    /// The units `health store types` lists for a type: the words people use that measure it
    /// (`kg`, `lb`, `st` for weight; `mg/dL`, `mmol/L` for glucose), else HealthKit's string of
    /// its unit.
    public static func acceptedUnits(for type: HKQuantityType) -> [String] {
        let display = type.defaultDisplayUnit
        if display == .count() {
            let word = countWord(for: type)
            return word.isEmpty ? ["count"] : [word, "count"]
        }
        if display == .percent() { return ["%"] }
        if display == HKUnit.count().unitDivided(by: .minute()) {
            let word = label(for: display, type: type)
            return word == "count/min" ? ["count/min"] : [word, "count/min"]
        }
        // The words people use for the type's kind of measure: body weight in kg, lb and st, a
        // nutrient in g, mg and mcg; a distance in km and mi, a height in cm, in and ft.
        let candidates: [String]
        switch HealthFormatter.defaultUnit(for: type) {
        case .gramUnit(with: .kilo): candidates = ["kg", "lb", "st", "g"]
        case .meterUnit(with: .kilo): candidates = ["km", "mi", "m", "ft", "yd"]
        case .meterUnit(with: .centi): candidates = ["cm", "in", "ft", "m"]
        default:
            candidates = ["g", "mg", "mcg", "oz", "mg/dL", "mmol/L", "°C", "°F", "m", "km", "mi", "ft",
                          "kcal", "kJ", "min", "hr", "s", "ms", "mmHg", "mL", "L", "fl_oz_us", "km/h", "mph"]
        }
        var accepted = candidates.filter { word in
            guard let unit = try? unit(word, for: nil) else { return false }
            if word == "mmol/L" { return molarMass(for: type) != nil }
            return type.is(compatibleWith: unit)
        }
        let own = label(for: display, type: type)
        if !accepted.contains(own) { accepted.insert(own, at: 0) }
        return accepted
    }

    /// The word a count of `type` is shown with: `steps`, `floors`… or empty (a BMI is a bare number).
    public static func countWord(for type: HKQuantityType) -> String {
        switch type.identifier {
        case HKQuantityTypeIdentifier.stepCount.rawValue: "steps"
        case HKQuantityTypeIdentifier.flightsClimbed.rawValue: "floors"
        case HKQuantityTypeIdentifier.pushCount.rawValue: "pushes"
        case HKQuantityTypeIdentifier.swimmingStrokeCount.rawValue: "strokes"
        case HKQuantityTypeIdentifier.numberOfTimesFallen.rawValue: "falls"
        case HKQuantityTypeIdentifier.numberOfAlcoholicBeverages.rawValue: "drinks"
        case HKQuantityTypeIdentifier.inhalerUsage.rawValue: "puffs"
        default: ""
        }
    }

    /// The unit as a value is shown with it: `bpm` for heart rates, `breaths/min`, `steps`,
    /// `mmol/L`, `°C`, `°F`, else HealthKit's unit string (`kg`, `mg/dL`, `mmHg`, `mL/min·kg`).
    /// Every label reads back through ``unit(_:for:)`` as the same unit.
    public static func label(for unit: HKUnit, type: HKQuantityType?) -> String {
        if unit == HKUnit.count().unitDivided(by: .minute()), let type {
            switch type.identifier {
            case HKQuantityTypeIdentifier.heartRate.rawValue, HKQuantityTypeIdentifier.restingHeartRate.rawValue,
                 HKQuantityTypeIdentifier.walkingHeartRateAverage.rawValue, HKQuantityTypeIdentifier.heartRateRecoveryOneMinute.rawValue:
                return "bpm"
            case HKQuantityTypeIdentifier.respiratoryRate.rawValue:
                return "breaths/min"
            default:
                return unit.unitString
            }
        }
        if unit == .count(), let type { return countWord(for: type) }
        if unit == .count() { return "" }
        if let molarMass = molarMass(for: type),
           unit == HKUnit.moleUnit(with: .milli, molarMass: molarMass).unitDivided(by: .liter()) {
            return "mmol/L"
        }
        if unit == .degreeCelsius() { return "°C" }
        if unit == .degreeFahrenheit() { return "°F" }
        return unit.unitString
    }
}
