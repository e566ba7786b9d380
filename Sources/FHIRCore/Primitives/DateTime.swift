import Foundation

/// A FHIR `dateTime`: a date at year, year-month or day precision, optionally with a time of day
/// (seconds required, fraction optional) and then a required time zone.
///
/// Lexical forms: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, `YYYY-MM-DDThh:mm:ss(.f+)?(Z|±hh:mm)`.
/// A time requires a full date and a zone; a zone requires a time. Seconds may be 60 (leap second).
/// ``description`` reproduces the parsed text exactly (including `+00:00` versus `Z` and the
/// fraction digits as written). Equality compares the lexical form, not the instant.
public struct DateTime: FHIRPrimitiveValue {
    /// The calendar date (at any precision).
    public let date: FHIRDate
    /// The time of day, present only with a full date.
    public let time: FHIRTime?
    /// The zone, present exactly when ``time`` is.
    public let timeZone: FHIRTimeZone?

    /// Creates a date-time from its parts.
    /// - Throws: ``FHIRPrimitiveError`` if a time is given without a full date or without a zone,
    ///   a zone without a time, or the zone is out of range.
    public init(date: FHIRDate, time: FHIRTime? = nil, timeZone: FHIRTimeZone? = nil) throws(FHIRPrimitiveError) {
        if time != nil {
            guard date.isFullDate else {
                throw FHIRPrimitiveError(type: "dateTime", reason: "a time requires a full date")
            }
            guard let timeZone else {
                throw FHIRPrimitiveError(type: "dateTime", reason: "a time requires a time zone")
            }
            guard timeZone.isValid else {
                throw FHIRPrimitiveError(type: "dateTime", reason: "time zone offset is out of range (at most 14:00)")
            }
        } else if timeZone != nil {
            throw FHIRPrimitiveError(type: "dateTime", reason: "a time zone requires a time")
        }
        self.date = date
        self.time = time
        self.timeZone = timeZone
    }

    init(unchecked date: FHIRDate, time: FHIRTime?, timeZone: FHIRTimeZone?) {
        self.date = date
        self.time = time
        self.timeZone = timeZone
    }

    /// Parses a FHIR dateTime.
    /// - Throws: ``FHIRPrimitiveError`` naming what is wrong (never the text itself).
    public init(_ text: String) throws(FHIRPrimitiveError) {
        self = try LexicalScanner.scan(text, type: "dateTime", Self.parseWhole)
    }

    /// Parses the whole lexical form (nothing may follow it).
    static func parseWhole(_ scanner: inout LexicalScanner) throws(FHIRPrimitiveError) -> DateTime {
        let date = try FHIRDate.parse(&scanner)
        guard scanner.consume(UInt8(ascii: "T")) else {
            try scanner.expectEnd()
            return DateTime(unchecked: date, time: nil, timeZone: nil)
        }
        guard date.isFullDate else { throw scanner.fail("a time requires a full date") }
        let time = try FHIRTime.parse(&scanner)
        guard !scanner.isAtEnd else { throw scanner.fail("a time requires a time zone") }
        let zone = try FHIRTimeZone.parse(&scanner)
        try scanner.expectEnd()
        return DateTime(unchecked: date, time: time, timeZone: zone)
    }

    /// Decodes a JSON string holding a FHIR dateTime.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        guard case .string(let text) = value else {
            throw LexicalScanner.wrongKind("dateTime", expected: "string", found: value)
        }
        try self.init(text)
    }

    /// Decodes the JSON string at `node` of a tape, scanning its bytes in place (no `String` is made).
    public init(fhirJSON tape: JSONTape, node: Int) throws(FHIRPrimitiveError) {
        if let value = try LexicalScanner.scan(tape, node, type: "dateTime", Self.parseWhole) {
            self = value
        } else {
            try self.init(fhirJSON: tape.scalar(at: node))
        }
    }

    /// The dateTime as a JSON string.
    public var fhirJSON: JSONValue { .string(description) }

    /// The lexical form, exactly as it was parsed.
    public var description: String {
        guard let time, let timeZone else { return date.description }
        return date.description + "T" + time.description + timeZone.description
    }

    /// The start of the period this value denotes: a year gives January 1 00:00, a month its first
    /// day, a date its midnight. Values without a time have no zone and are taken as UTC.
    /// Always non-nil for a valid value.
    public func asDate() -> Date? {
        TemporalConversion.date(date: date, time: time, timeZone: timeZone)
    }

    /// Full precision (date, time, zone) for `date` as seen in `timeZone`, with milliseconds when
    /// they are non-zero. A zero offset is written `Z`; instants outside years 0001–9999 are clamped.
    public init(_ date: Date, timeZone: TimeZone = .gmt) {
        let parts = TemporalConversion.components(of: date, in: timeZone)
        self.init(unchecked: parts.date, time: parts.time, timeZone: parts.zone)
    }
}
