import CommonSupport

/// A FHIR `time`: a time of day `hh:mm:ss` with optional fractional seconds and no time zone.
///
/// Hours 00-23, minutes 00-59, seconds 00-60 (60 allows a leap second). The fraction digits are
/// kept exactly as written, so ``description`` reproduces the parsed text.
public struct FHIRTime: FHIRPrimitiveValue {
    /// 0 through 23.
    public let hour: UInt8
    /// 0 through 59.
    public let minute: UInt8
    /// 0 through 60 (60 is a leap second).
    public let second: UInt8
    /// The digits after the decimal point exactly as written (`"500"` for `.500`), or `nil`.
    public let fraction: String?

    /// Creates a time of day.
    /// - Throws: ``FHIRPrimitiveError`` if a component is out of range or `fraction` is not a
    ///   non-empty run of ASCII digits.
    public init(hour: UInt8, minute: UInt8, second: UInt8, fraction: String? = nil) throws(FHIRPrimitiveError) {
        try Self.validate(hour: Int(hour), minute: Int(minute), second: Int(second), type: "time")
        if let fraction {
            guard !fraction.isEmpty, fraction.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else {
                throw FHIRPrimitiveError(type: "time", reason: "fraction must be one or more digits")
            }
        }
        self.init(unchecked: hour, minute: minute, second: second, fraction: fraction)
    }

    init(unchecked hour: UInt8, minute: UInt8, second: UInt8, fraction: String?) {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.fraction = fraction
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
    public init(fhirJSON tape: JSONTape, node: Int) throws(FHIRPrimitiveError) {
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
            + ":" + CivilCalendar.padded(Int(second), width: 2)
        if let fraction { text += "." + fraction }
        return text
    }

    /// Seconds since midnight including the fraction (a leap second counts as second 60).
    public var secondsSinceMidnight: Double {
        let whole = Double(Int(hour) * 3600 + Int(minute) * 60 + Int(second))
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
