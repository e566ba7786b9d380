/// An error from parsing a unit string or converting between units.
///
/// HealthKit raises an Objective-C exception for a bad unit string or an incompatible
/// conversion. OpenHealthKit reports the same situations with this typed error instead,
/// from ``HKUnit/parse(_:)``, ``HKQuantity/value(in:)`` and
/// ``HKQuantity/compare(to:)``.
///
/// Match on ``kind``:
///
/// ```swift
/// do {
///     _ = try HKUnit.parse("mol<abc>/L")
/// } catch where error.kind == .invalidMolarMass {
///     // …
/// }
/// ```
///
/// Unit strings carry no personal health information, so the description includes the
/// offending string (truncated to 64 characters). Quantity values are never included.
public struct HKUnitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. New kinds may be added in later versions.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case emptyString
            case inputTooLong
            case unexpectedCharacter
            case expectedUnit
            case unknownUnit
            case prefixNotAllowed
            case missingMolarMass
            case invalidMolarMass
            case unexpectedMolarMass
            case missingExponent
            case exponentOutOfRange
            case unbalancedParentheses
            case nestingTooDeep
            case incompatibleUnits
            case conversionOutOfRange
        }

        fileprivate let base: Base

        fileprivate init(_ base: Base) {
            self.base = base
        }

        /// The string is empty or contains only spaces. (`()` is the way to spell the null unit.)
        public static let emptyString = Kind(.emptyString)
        /// The string is longer than ``HKUnitError/maximumInputLength`` Unicode scalars.
        public static let inputTooLong = Kind(.inputTooLong)
        /// A character that cannot appear at this position, e.g. `#`, a second `^`, or a number other than `1`.
        public static let unexpectedCharacter = Kind(.unexpectedCharacter)
        /// A unit was expected but an operator or the end of the string was found, e.g. `m*`, `/s`, `kg**m`.
        public static let expectedUnit = Kind(.expectedUnit)
        /// A name that is neither a unit nor a prefixed SI unit, e.g. `furlong` or `kmin`.
        public static let unknownUnit = Kind(.unknownUnit)
        /// A prefix on a unit that does not take prefixes, e.g. `klb` or `mcal`.
        public static let prefixNotAllowed = Kind(.prefixNotAllowed)
        /// `mol` without `<molar mass>`, e.g. `mmol/L`.
        public static let missingMolarMass = Kind(.missingMolarMass)
        /// The text between `<` and `>` is not a finite number greater than zero, or `>` is missing.
        public static let invalidMolarMass = Kind(.invalidMolarMass)
        /// A `<molar mass>` after a unit that is not a mole unit, e.g. `g<180>`.
        public static let unexpectedMolarMass = Kind(.unexpectedMolarMass)
        /// `^` without an integer after it.
        public static let missingExponent = Kind(.missingExponent)
        /// An exponent whose magnitude exceeds ``HKUnitError/maximumExponentMagnitude``.
        public static let exponentOutOfRange = Kind(.exponentOutOfRange)
        /// A `(` without its `)` or a `)` without its `(`.
        public static let unbalancedParentheses = Kind(.unbalancedParentheses)
        /// Parentheses nested deeper than ``HKUnitError/maximumNestingDepth``.
        public static let nestingTooDeep = Kind(.nestingTooDeep)
        /// A conversion between units of different dimensions, e.g. `kg` to `m`.
        public static let incompatibleUnits = Kind(.incompatibleUnits)
        /// A conversion whose factor is not a finite, non-zero `Double` (absurd exponents such as `km^400`).
        public static let conversionOutOfRange = Kind(.conversionOutOfRange)

        /// The kind's name, e.g. `unknownUnit`.
        public var description: String { base.rawValue }
    }

    /// The longest unit string accepted, in Unicode scalars.
    public static let maximumInputLength = 1024
    /// The largest exponent magnitude accepted, per literal and after combining factors.
    public static let maximumExponentMagnitude = 1_000_000
    /// The deepest parenthesis nesting accepted.
    public static let maximumNestingDepth = 32

    /// What went wrong.
    public let kind: Kind
    /// The unit string being parsed, or the source unit of a failed conversion.
    public let unitString: String
    /// The target unit of a failed conversion; `nil` for parse errors.
    public let targetUnitString: String?
    /// The offset, in Unicode scalars from the start of ``unitString``, where a parse error was found.
    public let position: Int?
    /// A human-readable explanation.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - unitString: The unit string being parsed, or the source unit of a conversion.
    ///   - targetUnitString: The target unit of a conversion, if any.
    ///   - position: The offset in Unicode scalars where a parse error was found, if any.
    ///   - message: A human-readable explanation.
    public init(kind: Kind, unitString: String, targetUnitString: String? = nil, position: Int? = nil, message: String) {
        self.kind = kind
        self.unitString = unitString
        self.targetUnitString = targetUnitString
        self.position = position
        self.message = message
    }

    /// A one-line description: kind, offending string, position and message.
    public var description: String {
        var text = "HKUnitError.\(kind): \(message) in \"\(Self.truncated(unitString))\""
        if let targetUnitString {
            text += " -> \"\(Self.truncated(targetUnitString))\""
        }
        if let position {
            text += " at offset \(position)"
        }
        return text
    }

    private static func truncated(_ string: String) -> String {
        let limit = 64
        guard string.unicodeScalars.count > limit else { return string }
        return String(String.UnicodeScalarView(string.unicodeScalars.prefix(limit))) + "…"
    }
}
