import CommonSupport
import Foundation

/// A FHIR `time`: a time of day `hh:mm:ss` with optional fractional seconds and no time zone.
///
/// Hours 00-23, minutes 00-59, seconds 00-60 (60 allows a leap second). The fraction digits are
/// kept exactly as written, so ``description`` reproduces the parsed text.
///
/// FHIRModels' spelling is here too: mutable components, ``second`` as a `Decimal`,
/// ``originalSecondsString`` and the non-throwing ``init(hour:minute:second:)``.
public struct FHIRTime: FHIRPrimitiveValue {
    /// 0 through 23 in a valid time.
    public var hour: UInt8
    /// 0 through 59 in a valid time.
    public var minute: UInt8
    /// The whole seconds, 0 through 60 (60 is a leap second).
    public var wholeSeconds: UInt8
    /// The digits after the decimal point exactly as written (`"500"` for `.500`), or `nil`.
    public var fraction: String?

    /// Creates a time of day, checking it.
    /// - Throws: ``FHIRPrimitiveError`` if a component is out of range or `fraction` is not a
    ///   non-empty run of ASCII digits.
    public init(hour: UInt8, minute: UInt8, second: UInt8, fraction: String?) throws(FHIRPrimitiveError) {
        try Self.validate(hour: Int(hour), minute: Int(minute), second: Int(second), type: "time")
        if let fraction {
            guard Self.isDigitRun(fraction) else {
                throw FHIRPrimitiveError(type: "time", reason: "fraction must be one or more digits")
            }
        }
        self.init(unchecked: hour, minute: minute, second: second, fraction: fraction)
    }

    /// Creates a time of day from FHIRModels' components (seconds with their fraction as a
    /// `Decimal`), without checking it: see ``isValid``. A negative or non-finite second counts as 0.
    public init(hour: UInt8, minute: UInt8, second: Decimal) {
        self.init(unchecked: hour, minute: minute, second: 0, fraction: nil)
        self.second = second
    }

    init(unchecked hour: UInt8, minute: UInt8, second: UInt8, fraction: String?) {
        self.hour = hour
        self.minute = minute
        self.wholeSeconds = second
        self.fraction = fraction
    }

    /// The seconds with their fraction (FHIRModels' `second`). Setting it keeps the digits of the
    /// decimal as written; a negative, non-finite or over-60 value is ignored.
    public var second: Decimal {
        get {
            guard let fraction else { return Decimal(Int(wholeSeconds)) }
            return Decimal(string: "\(wholeSeconds).\(fraction)", locale: Locale(identifier: "en_US_POSIX"))
                ?? Decimal(Int(wholeSeconds))
        }
        set {
            guard !newValue.isNaN, newValue >= 0, newValue < 61 else { return }
            let text = newValue.description
            let parts = text.split(separator: ".", maxSplits: 1)
            guard let whole = parts.first.flatMap({ UInt8($0) }) else { return }
            wholeSeconds = whole
            fraction = parts.count == 2 && Self.isDigitRun(String(parts[1])) ? String(parts[1]) : nil
        }
    }

    /// The seconds as written, `ss` or `ss.fff` (FHIRModels' `originalSecondsString`).
    public var originalSecondsString: String? {
        CivilCalendar.padded(Int(wholeSeconds), width: 2) + (fraction.map { "." + $0 } ?? "")
    }

    /// Whether the components form a time FHIR allows.
    public var isValid: Bool {
        (try? Self.validate(hour: Int(hour), minute: Int(minute), second: Int(wholeSeconds), type: "time")) != nil
            && (fraction.map(Self.isDigitRun) ?? true)
    }

    private static func isDigitRun(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 &- UInt8(ascii: "0") < 10 }
    }

    /// Parses the lexical form `hh:mm:ss` or `hh:mm:ss.fff…`.
    /// - Throws: ``FHIRPrimitiveError`` naming what is wrong (never the text itself).
    public init(_ text: String) throws(FHIRPrimitiveError) {
        self = try LexicalScanner.scan(text, type: "time", Self.parseWhole)
    }

    /// Parses the whole lexical form (nothing may follow it).
    static func parseWhole(_ scanner: inout LexicalScanner) throws(FHIRPrimitiveError) -> FHIRTime {
        let time = try FHIRTime.parse(&scanner)
        try scanner.expectEnd()
        return time
    }

    /// Decodes a JSON string holding a FHIR time.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        guard case .string(let text) = value else {
            throw LexicalScanner.wrongKind("time", expected: "string", found: value)
        }
        try self.init(text)
    }

    /// Decodes the JSON string at `node` of a tape, scanning its bytes in place (no `String` is made).
    public init(fhirJSON tape: borrowing JSONTape, node: Int) throws(FHIRPrimitiveError) {
        if let value = try LexicalScanner.scan(tape, node, type: "time", Self.parseWhole) {
            self = value
        } else {
            try self.init(fhirJSON: tape.scalar(at: node))
        }
    }

    /// The time as a JSON string.
    public var fhirJSON: JSONValue { .string(description) }

    /// The lexical form, exactly as it was parsed.
    public var description: String {
        var text = CivilCalendar.padded(Int(hour), width: 2) + ":" + CivilCalendar.padded(Int(minute), width: 2)
            + ":" + CivilCalendar.padded(Int(wholeSeconds), width: 2)
        if let fraction { text += "." + fraction }
        return text
    }

    /// Seconds since midnight including the fraction (a leap second counts as second 60).
    public var secondsSinceMidnight: Double {
        let whole = Double(Int(hour) * 3600 + Int(minute) * 60 + Int(wholeSeconds))
        guard let fraction else { return whole }
        return whole + (Double("0." + fraction) ?? 0)
    }

    // MARK: Shared parsing

    /// Reads `hh:mm:ss(.f+)?` and stops before anything else.
    static func parse(_ scanner: inout LexicalScanner) throws(FHIRPrimitiveError) -> FHIRTime {
        let hour = try scanner.digits(2, "hour")
        try scanner.expect(UInt8(ascii: ":"), "':' after the hour")
        let minute = try scanner.digits(2, "minute")
        try scanner.expect(UInt8(ascii: ":"), "':' and seconds after the minute")
        let second = try scanner.digits(2, "second")
        var fraction: String?
        if scanner.consume(UInt8(ascii: ".")) {
            fraction = try scanner.digitRun("fraction of a second")
        }
        try validate(hour: hour, minute: minute, second: second, type: scanner.type)
        return FHIRTime(unchecked: UInt8(hour), minute: UInt8(minute), second: UInt8(second), fraction: fraction)
    }

    static func validate(hour: Int, minute: Int, second: Int, type: String) throws(FHIRPrimitiveError) {
        guard hour <= 23 else { throw FHIRPrimitiveError(type: type, reason: "hour is out of range (00-23)") }
        guard minute <= 59 else { throw FHIRPrimitiveError(type: type, reason: "minute is out of range (00-59)") }
        guard second <= 60 else { throw FHIRPrimitiveError(type: type, reason: "second is out of range (00-60)") }
    }
}
