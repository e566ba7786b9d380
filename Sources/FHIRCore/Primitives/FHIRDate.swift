import CommonSupport
import Foundation

/// A FHIR `date`: a year, a year and month, or a full date, with no time and no time zone.
///
/// Lexical form `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (year 0001 to 9999). The day is checked against
/// the month, with Gregorian leap years. Because every component is fixed-width,
/// ``description`` reproduces the parsed text exactly.
///
/// As in FHIRModels the components are mutable and ``init(year:month:day:)`` does not throw (a
/// month over 12 or a day over 31 is dropped, and so is a day without a month);
/// ``init(validatingYear:month:day:)`` checks the whole date and ``isValid`` tells whether a
/// value built or changed by hand is one FHIR allows.
public struct FHIRDate: FHIRPrimitiveValue {
    /// The year, 1 through 9999 in a valid date.
    public var year: Int
    /// The month, 1 through 12, or `nil` for year precision. Setting a value over 12 is ignored.
    public var month: UInt8? {
        didSet { if let month, month > 12 { self.month = oldValue } }
    }
    /// The day of the month, or `nil` for year or year-month precision. Setting a value over 31 is
    /// ignored.
    public var day: UInt8? {
        didSet { if let day, day > 31 { self.day = oldValue } }
    }

    /// Creates a date at year, year-month or full-date precision without checking it (FHIRModels'
    /// initializer): a month over 12 drops month and day, a day over 31 or without a month is
    /// dropped. Use ``isValid`` or ``init(validatingYear:month:day:)`` to check.
    public init(year: Int, month: UInt8? = nil, day: UInt8? = nil) {
        self.year = year
        if let month, month <= 12 {
            self.month = month
            if let day, day <= 31 { self.day = day }
        }
    }

    /// Creates a date at year, year-month or full-date precision.
    /// - Throws: ``FHIRPrimitiveError`` if a component is out of range, the day does not exist in
    ///   that month, or a day is given without a month.
    public init(validatingYear year: Int, month: UInt8? = nil, day: UInt8? = nil) throws(FHIRPrimitiveError) {
        try Self.validate(year: year, month: month, day: day, type: "date")
        self.init(unchecked: year, month: month, day: day)
    }

    /// Whether the components form a date FHIR allows (year 0001–9999, a month 1–12, a day that
    /// exists in that month).
    public var isValid: Bool {
        (try? Self.validate(year: year, month: month, day: day, type: "date")) != nil
    }

    init(unchecked year: Int, month: UInt8?, day: UInt8?) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses the lexical form `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
    /// - Throws: ``FHIRPrimitiveError`` naming what is wrong (never the text itself).
    public init(_ text: String) throws(FHIRPrimitiveError) {
        self = try LexicalScanner.scan(text, type: "date", Self.parseWhole)
    }

    /// Parses the whole lexical form (nothing may follow it).
    static func parseWhole(_ scanner: inout LexicalScanner) throws(FHIRPrimitiveError) -> FHIRDate {
        let date = try FHIRDate.parse(&scanner)
        try scanner.expectEnd()
        return date
    }

    /// Decodes a JSON string holding a FHIR date.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        guard case .string(let text) = value else {
            throw LexicalScanner.wrongKind("date", expected: "string", found: value)
        }
        try self.init(text)
    }

    /// Decodes the JSON string at `node` of a tape, scanning its bytes in place (no `String` is made).
    public init(fhirJSON tape: borrowing JSONTape, node: Int) throws(FHIRPrimitiveError) {
        if let value = try LexicalScanner.scan(tape, node, type: "date", Self.parseWhole) {
            self = value
        } else {
            try self.init(fhirJSON: tape.scalar(at: node))
        }
    }

    /// The date as a JSON string.
    public var fhirJSON: JSONValue { .string(description) }

    /// The lexical form, exactly as it was parsed.
    public var description: String {
        var text = CivilCalendar.padded(year, width: 4)
        if let month {
            text += "-" + CivilCalendar.padded(Int(month), width: 2)
            if let day { text += "-" + CivilCalendar.padded(Int(day), width: 2) }
        }
        return text
    }

    /// Whether month and day are both present.
    public var isFullDate: Bool { day != nil }

    /// The start of the period this date denotes (a year-only date gives January 1, a year-month
    /// date the first of the month), at 00:00:00 UTC since a FHIR date has no time zone.
    /// Always non-nil for a valid value.
    public func asDate() -> Date? {
        TemporalConversion.date(date: self, time: nil, timeZone: nil)
    }

    /// The full calendar date on which `date` falls in `timeZone`. Instants outside years
    /// 0001–9999 are clamped into that range.
    public init(_ date: Date, timeZone: TimeZone = .gmt) {
        self = TemporalConversion.components(of: date, in: timeZone).date
    }

    // MARK: Shared parsing

    /// Reads `YYYY(-MM(-DD)?)?` and stops before anything else.
    static func parse(_ scanner: inout LexicalScanner) throws(FHIRPrimitiveError) -> FHIRDate {
        let year = try scanner.digits(4, "year")
        var month: UInt8?
        var day: UInt8?
        if scanner.consume(UInt8(ascii: "-")) {
            month = UInt8(try scanner.digits(2, "month"))
            if scanner.consume(UInt8(ascii: "-")) {
                day = UInt8(try scanner.digits(2, "day"))
            }
        }
        try validate(year: year, month: month, day: day, type: scanner.type)
        return FHIRDate(unchecked: year, month: month, day: day)
    }

    static func validate(year: Int, month: UInt8?, day: UInt8?, type: String) throws(FHIRPrimitiveError) {
        guard year >= 1 && year <= 9999 else {
            throw FHIRPrimitiveError(type: type, reason: "year is out of range (0001-9999)")
        }
        guard let month else {
            if day != nil { throw FHIRPrimitiveError(type: type, reason: "a day requires a month") }
            return
        }
        guard month >= 1 && month <= 12 else {
            throw FHIRPrimitiveError(type: type, reason: "month is out of range (01-12)")
        }
        if let day {
            guard day >= 1 && Int(day) <= CivilCalendar.daysInMonth(Int(month), year: year) else {
                throw FHIRPrimitiveError(type: type, reason: "day does not exist in that month")
            }
        }
    }
}
