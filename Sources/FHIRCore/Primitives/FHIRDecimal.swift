import Foundation

/// A FHIR `decimal`, kept as its exact JSON number text so that precision survives a round trip
/// (`1.50` stays `1.50`, `1E+2` stays `1E+2`).
///
/// Grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
///
/// - Important: Equality and hashing compare the **text**, because in FHIR the number of
///   significant digits is meaningful: `19.00 != 19.0`. Use ``isNumericallyEqual(to:)`` to compare
///   values.
public struct FHIRDecimal: FHIRPrimitiveValue, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    /// The exact lexical form, always matching the grammar.
    public private(set) var text: String

    /// Wraps number text; `nil` unless it matches the decimal grammar.
    public init?(text: String) {
        guard DecimalLexicalForm.isValid(text) else { return nil }
        self.text = text
    }

    /// The shortest text of a Foundation decimal (for example `1.5`, `-0.001`).
    /// - Precondition: `decimal` is not NaN (FHIR cannot represent it). Use ``init(exactly:)-(Decimal)``
    ///   when the value comes from input.
    public init(_ decimal: Decimal) {
        let value = Self(exactly: decimal)
        precondition(value != nil, "FHIRDecimal cannot represent NaN")
        self = value ?? 0
    }

    /// The shortest text that round-trips `double` (for example `0.1`, `5.0`, `1e-05`).
    /// - Precondition: `double` is finite (FHIR cannot represent NaN or infinity). Use
    ///   ``init(exactly:)-(Double)`` when the value comes from input.
    public init(_ double: Double) {
        let value = Self(exactly: double)
        precondition(value != nil, "FHIRDecimal cannot represent NaN or infinity")
        self = value ?? 0
    }

    /// The text of a Foundation decimal, or `nil` for NaN.
    public init?(exactly decimal: Decimal) {
        guard !decimal.isNaN else { return nil }
        self.init(text: decimal.description)
    }

    /// The shortest round-tripping text of `double`, or `nil` if it is not finite.
    public init?(exactly double: Double) {
        guard double.isFinite else { return nil }
        self.init(text: double.description)
    }

    /// Creates the value from a floating-point literal. The literal passes through `Double`, so
    /// trailing zeros are lost (`19.00` becomes `19.0`); use ``init(text:)`` to keep them.
    public init(floatLiteral value: Double) {
        self.init(value)
    }

    /// Creates the value from an integer literal, written without a fraction.
    public init(integerLiteral value: Int) {
        self.text = String(value)
    }

    /// Decodes a JSON number, keeping its text.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        guard case .number(let text) = value else {
            throw LexicalScanner.wrongKind("decimal", expected: "number", found: value)
        }
        guard DecimalLexicalForm.isValid(text) else {
            throw FHIRPrimitiveError(type: "decimal", reason: "not a valid JSON number")
        }
        self.text = text
    }

    /// Decodes the JSON number at `node` of a tape. The tape has already checked the number
    /// against JSON's grammar, which is exactly the decimal grammar, so the text is not scanned
    /// again; the errors are those of decoding the `JSONValue`.
    public init(fhirJSON tape: borrowing JSONTape, node: Int) throws(FHIRPrimitiveError) {
        guard tape.kind(node) == .number else {
            throw FHIRPrimitiveError(type: "decimal", reason: "expected a number, found \(tape.kindName(at: node))")
        }
        text = tape.numberText(at: node)
    }

    /// The value as a JSON number with exactly ``text``.
    public var fhirJSON: JSONValue { .number(text) }

    /// The exact lexical form.
    public var description: String { text }

    /// The value as a Foundation decimal (38 significant digits), or `Decimal.nan` when the
    /// exponent is beyond Foundation's range.
    public var decimal: Decimal {
        get { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan }
        set { if let value = Self(exactly: newValue) { self = value } }
    }

    /// The nearest `Double` (infinite when the magnitude is beyond `Double`'s range).
    public var double: Double {
        Double(text) ?? .nan
    }

    /// Whether both values denote the same number, exactly, regardless of how they are written:
    /// `19.00`, `19.0`, `1.9E1` and `190e-1` are numerically equal, and so are `0` and `-0.0`.
    public func isNumericallyEqual(to other: FHIRDecimal) -> Bool {
        guard let lhs = DecimalLexicalForm.normalize(text), let rhs = DecimalLexicalForm.normalize(other.text) else {
            return text == other.text
        }
        return lhs == rhs
    }
}
