import Foundation
import OpenHealthKit

/// Reads values as people type them: `70`, `70.5 kg`, `8,412 steps`, `5.4 mmol/L`, `36.8 °C`,
/// `120/80`, and everything ``HealthFormatter`` writes.
public enum HealthInput {
    /// A quantity of `type` from a number and its unit, written together (`70 kg`) or apart
    /// (`text` 70, `unit` kg). Without a unit the number is in the unit the person reads the
    /// type in, `formatter`'s ``HealthFormatter/displayUnit(for:)`` (180 for height is 180 cm,
    /// 5 for a distance 5 km, in the owner's chosen units when `formatter` has them). A number in
    /// `%` is percent points: `20 %` is HealthKit's 0.2 `%`.
    /// - Parameters:
    ///   - text: The number, optionally followed by its unit.
    ///   - unit: The unit, when it is given apart from the number.
    ///   - type: The type the quantity is for; units are read for it (`mmol/L` of glucose).
    ///   - formatter: The formatter whose display units a number without a unit is read in.
    /// - Throws: ``HealthPresentationError`` for a bad number, an unknown unit or one that does
    ///   not fit the type, and ``HealthPresentationError/unitRequired(type:accepted:)`` for a
    ///   glucose number without a unit when the person chose none.
    public static func quantity(_ text: String, unit: String? = nil, for type: HKQuantityType,
                                formatter: HealthFormatter = .local) throws(HealthPresentationError) -> HKQuantity {
        let (numberText, _) = split(text)
        guard let number = NumberText.parse(numberText) else { throw .invalidNumber(text) }
        return HealthFormatter.quantity(personNumber: number, unit: try self.unit(of: text, unit: unit, for: type, formatter: formatter))
    }

    /// The unit a quantity typed as ``quantity(_:unit:for:formatter:)`` reads is in: the one
    /// written with the number or given apart, else `formatter`'s display unit for the type. A
    /// blood glucose without a unit is refused unless the person chose its unit: mg/dL and mmol/L
    /// differ eighteenfold, and a guess could store a dangerous value.
    /// - Parameters:
    ///   - text: The number, optionally followed by its unit.
    ///   - unit: The unit, when it is given apart from the number.
    ///   - type: The type the quantity is for.
    ///   - formatter: The formatter whose display units a number without a unit is read in.
    /// - Throws: ``HealthPresentationError`` for an unknown unit, one that does not fit, two that
    ///   differ, or a glucose without one.
    public static func unit(of text: String, unit: String? = nil, for type: HKQuantityType,
                            formatter: HealthFormatter = .local) throws(HealthPresentationError) -> HKUnit {
        let inlineUnit = split(text).unit
        let unitText = inlineUnit.isEmpty ? unit : inlineUnit
        guard let unitText, !unitText.isEmpty else { return try unitless(type, formatter: formatter) }
        let parsed = try HealthUnits.unit(unitText, for: type)
        if let unit, !unit.isEmpty, !inlineUnit.isEmpty {
            let other = try HealthUnits.unit(unit, for: type)
            guard other == parsed else { throw .unknownUnit(unit, reason: "the value already says its unit, \(inlineUnit)") }
        }
        return parsed
    }

    /// A blood pressure as people write it, systolic/diastolic in mmHg: `120/80`, `120/80 mmHg`.
    /// - Parameter text: The reading.
    /// - Throws: ``HealthPresentationError/invalidBloodPressure(_:)``.
    public static func bloodPressure(_ text: String) throws(HealthPresentationError) -> (systolic: HKQuantity, diastolic: HKQuantity) {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasSuffix("mmhg") { trimmed = String(trimmed.dropLast(4)).trimmingCharacters(in: .whitespaces) }
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let systolic = NumberText.parse(String(parts[0])), let diastolic = NumberText.parse(String(parts[1])),
              systolic > 0, diastolic > 0, systolic >= diastolic else {
            throw .invalidBloodPressure(text)
        }
        let mmHg = HKUnit.millimeterOfMercury()
        return (HKQuantity(unit: mmHg, doubleValue: systolic), HKQuantity(unit: mmHg, doubleValue: diastolic))
    }

    /// The unit of a number typed without one: the unit the person reads the type in; none for
    /// a glucose whose unit the person did not choose.
    private static func unitless(_ type: HKQuantityType, formatter: HealthFormatter) throws(HealthPresentationError) -> HKUnit {
        if HealthUnits.molarMass(for: type) != nil {
            guard let chosen = formatter.units[type], chosen != type.defaultDisplayUnit, type.is(compatibleWith: chosen) else {
                throw .unitRequired(type: type.displayName, accepted: ["mg/dL", "mmol/L"])
            }
        }
        return formatter.displayUnit(for: type)
    }

    /// The number at the start of `text` and the rest (its unit, empty when none), trimmed:
    /// `70.5 kg` is `70.5` and `kg`, `1.7e308 kg` is `1.7e308` and `kg`.
    /// - Parameter text: A value as a person typed it.
    public static func split(_ text: String) -> (number: String, unit: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var end = trimmed.startIndex
        var index = trimmed.startIndex
        while index < trimmed.endIndex {
            let character = trimmed[index]
            let isNumberPart = character.isASCII && (character.isNumber || character == "." || character == "," || character == "-" || character == "+")
            guard isNumberPart else {
                // An exponent after digits (`1.7e308 kg`) belongs to the number, not the unit.
                let exponent = NumberText.exponentLength(trimmed[index...])
                if exponent > 0, trimmed[..<index].contains(where: \.isNumber) {
                    index = trimmed.index(index, offsetBy: exponent)
                    end = index
                }
                break
            }
            index = trimmed.index(after: index)
            end = index
        }
        return (String(trimmed[..<end]), String(trimmed[end...]).trimmingCharacters(in: .whitespaces))
    }
}
