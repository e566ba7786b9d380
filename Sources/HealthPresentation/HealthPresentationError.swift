import OpenHealthKit

/// What people typed that the presentation layer cannot read: each case says what was wrong in
/// words a person reads, and lists what would have been accepted.
public enum HealthPresentationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A type name that is neither an everyday name nor a HealthKit identifier.
    case unknownType(String)
    /// A unit that neither the everyday words nor HealthKit's grammar read; `reason` is the parser's.
    case unknownUnit(String, reason: String)
    /// A unit that does not measure the type; `accepted` are the units it takes.
    case unitDoesNotFit(unit: String, type: String, accepted: [String])
    /// A number that is not one (or is not finite).
    case invalidNumber(String)
    /// A category value that is not one of the type's; `accepted` are its names.
    case unknownCategoryValue(String, type: String, accepted: [String])
    /// A blood pressure that is not `systolic/diastolic` in mmHg.
    case invalidBloodPressure(String)
    /// A number without a unit for a type whose unit cannot be guessed safely (blood glucose);
    /// `accepted` are the units to write.
    case unitRequired(type: String, accepted: [String])

    public var description: String {
        switch self {
        case .unknownType(let name):
            return "unknown type '\(name)': use an everyday name such as weight, steps, heart-rate, blood-pressure, sleep or glucose, "
                + "or a HealthKit name such as stepCount (`health store types` lists them all)"
        case .unknownUnit(let text, let reason):
            return "invalid unit '\(text)': \(reason)"
        case .unitDoesNotFit(let unit, let type, let accepted):
            return "unit '\(unit)' does not fit \(type)" + (accepted.isEmpty ? "" : ": use \(accepted.joined(separator: ", "))")
        case .invalidNumber(let text):
            return "'\(text)' is not a number: write it with digits and a dot for decimals, e.g. 72 or 70.5"
        case .unknownCategoryValue(let text, let type, let accepted):
            return "'\(text)' is not a value of \(type): use one of \(accepted.joined(separator: ", "))"
        case .invalidBloodPressure(let text):
            return "'\(text)' is not a blood pressure: write systolic/diastolic in mmHg, e.g. 120/80"
        case .unitRequired(let type, let accepted):
            return "\(type) needs its unit: add \(accepted.map { "--unit \($0)" }.joined(separator: " or ")) (or write it after the number)"
        }
    }
}
