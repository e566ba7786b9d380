import Foundation
import OpenHealthKit

/// Reads values as people type them: `70`, `70.5 kg`, `8,412 steps`, `5.4 mmol/L`, `36.8 °C`,
/// `120/80`, and everything ``HealthFormatter`` writes.
public enum HealthInput {
    /// A quantity of `type` from a number and its unit, written together (`70 kg`) or apart
    /// (`text` 70, `unit` kg). Without a unit the number is in the type's
    /// ``HKQuantityType/defaultDisplayUnit``. A number in `%` is percent points: `20 %` is
    /// HealthKit's 0.2 `%`.
    /// - Parameters:
    ///   - text: The number, optionally followed by its unit.
    ///   - unit: The unit, when it is given apart from the number.
    ///   - type: The type the quantity is for; units are read for it (`mmol/L` of glucose).
    /// - Throws: ``HealthPresentationError`` for a bad number, an unknown unit or one that does
    ///   not fit the type.
    public static func quantity(_ text: String, unit: String? = nil, for type: HKQuantityType) throws(HealthPresentationError) -> HKQuantity {
        let (numberText, inlineUnit) = split(text)
        guard let number = NumberText.parse(numberText) else { throw .invalidNumber(text) }
        let unitText = inlineUnit.isEmpty ? unit : inlineUnit
        let parsed: HKUnit
        if let unitText, !unitText.isEmpty {
            parsed = try HealthUnits.unit(unitText, for: type)
            if let unit, !unit.isEmpty, !inlineUnit.isEmpty {
                let other = try HealthUnits.unit(unit, for: type)
                guard other == parsed else { throw .unknownUnit(unit, reason: "the value already says its unit, \(inlineUnit)") }
            }
        } else {
            parsed = countWordless(type)
        }
        return HealthFormatter.quantity(personNumber: number, unit: parsed)
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

    /// The unit of a number typed without one: the type's display default.
    private static func countWordless(_ type: HKQuantityType) -> HKUnit {
        type.defaultDisplayUnit
    }

    /// The number at the start of `text` and the rest (its unit, empty when none), trimmed:
    /// `70.5 kg` is `70.5` and `kg`.
    /// - Parameter text: A value as a person typed it.
    public static func split(_ text: String) -> (number: String, unit: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var end = trimmed.startIndex
        var index = trimmed.startIndex
        while index < trimmed.endIndex {
            let character = trimmed[index]
            let isNumberPart = character.isASCII && (character.isNumber || character == "." || character == "," || character == "-" || character == "+")
            guard isNumberPart else { break }
            index = trimmed.index(after: index)
            end = index
        }
        return (String(trimmed[..<end]), String(trimmed[end...]).trimmingCharacters(in: .whitespaces))
    }
}
