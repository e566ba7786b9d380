import Foundation

/// A FHIR `dateTime`: a date at year, year-month or day precision, optionally with a time of day
/// (seconds required, fraction optional) and then a required time zone.
///
/// Lexical forms: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, `YYYY-MM-DDThh:mm:ss(.f+)?(Z|±hh:mm)`.
/// A time requires a full date and a zone; a zone requires a time. Seconds may be 60 (leap second).
/// ``description`` reproduces the parsed text exactly (including `+00:00` versus `Z` and the
/// fraction digits as written). Equality compares the lexical form, not the instant; ordering
/// (`<`) compares the instants the values start at.
///
/// The zone is kept as written in ``zone``; FHIRModels' Foundation ``timeZone`` and
/// ``originalTimeZoneString`` are views of it. The parts are mutable and
/// ``init(date:time:timezone:)`` does not throw, as in FHIRModels: a value changed by hand is
/// checked by ``isValid``.
public struct DateTime: FHIRPrimitiveValue {
    /// The calendar date (at any precision).
    public var date: FHIRDate
    /// The time of day, present only with a full date.
    public var time: FHIRTime?
    /// The zone exactly as written (`Z`, `+00:00`, `-05:00`), present exactly when ``time`` is.
    public var zone: FHIRTimeZone?

    /// Creates a date-time from its parts, checking them.
    /// - Throws: ``FHIRPrimitiveError`` if a time is given without a full date or without a zone,
    ///   a zone without a time, or the zone is out of range.
    public init(date: FHIRDate, time: FHIRTime?, zone: FHIRTimeZone?) throws(FHIRPrimitiveError) {
        try Self.validate(date: date, time: time, zone: zone)
        self.init(unchecked: date, time: time, timeZone: zone)
    }

    /// Creates a date-time from FHIRModels' parts (a Foundation time zone) without checking them:
    /// see ``isValid``. The zone is stored as its offset at that date and time, in whole minutes
    /// (a zone that is not one FHIR can write is dropped).
    public init(date: FHIRDate, time: FHIRTime? = nil, timezone: TimeZone? = nil) {
        self.init(unchecked: date, time: time, timeZone: nil)
        self.timeZone = timezone
    }

    init(unchecked date: FHIRDate, time: FHIRTime?, timeZone: FHIRTimeZone?) {
        self.date = date
        self.time = time
        self.zone = timeZone
    }

    /// The zone as a Foundation time zone with a fixed offset (FHIRModels' `timeZone`). Setting it
    /// stores the offset the zone has at this value's date and time.
    public var timeZone: TimeZone? {
        get { zone?.timeZone }
        set {
            guard let newValue else {
                zone = nil
                return
            }
            let reference = TemporalConversion.date(date: date, time: time, timeZone: nil) ?? Date(timeIntervalSince1970: 0)
            zone = FHIRTimeZone(secondsFromGMT: newValue.secondsFromGMT(for: reference) / 60 * 60)
        }
    }

    /// The zone as written, `Z` or `±hh:mm` (FHIRModels' `originalTimeZoneString`).
    public var originalTimeZoneString: String? { zone?.description }

    /// Whether the parts form a dateTime FHIR allows: a valid date, and a time only with a full
    /// date and a valid zone.
    public var isValid: Bool {
        guard date.isValid, time?.isValid ?? true else { return false }
        return (try? Self.validate(date: date, time: time, zone: zone)) != nil
    }

    private static func validate(date: FHIRDate, time: FHIRTime?, zone: FHIRTimeZone?) throws(FHIRPrimitiveError) {
        if time != nil {
            guard date.isFullDate else {
                throw FHIRPrimitiveError(type: "dateTime", reason: "a time requires a full date")
            }
            guard let zone else {
                throw FHIRPrimitiveError(type: "dateTime", reason: "a time requires a time zone")
            }
            guard zone.isValid else {
                throw FHIRPrimitiveError(type: "dateTime", reason: "time zone offset is out of range (at most 14:00)")
            }
        } else if zone != nil {
            throw FHIRPrimitiveError(type: "dateTime", reason: "a time zone requires a time")
        }
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
    public init(fhirJSON tape: borrowing JSONTape, node: Int) throws(FHIRPrimitiveError) {
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
        guard let time, let zone else { return date.description }
        return date.description + "T" + time.description + zone.description
    }

    /// The start of the period this value denotes: a year gives January 1 00:00, a month its first
    /// day, a date its midnight. Values without a time have no zone and are taken as UTC.
    /// Always non-nil for a valid value.
    public func asDate() -> Date? {
        TemporalConversion.date(date: date, time: time, timeZone: zone)
    }

    /// Full precision (date, time, zone) for `date` as seen in `timeZone`, with milliseconds when
    /// they are non-zero. A zero offset is written `Z`; instants outside years 0001–9999 are clamped.
    public init(_ date: Date, timeZone: TimeZone = .gmt) {
        let parts = TemporalConversion.components(of: date, in: timeZone)
        self.init(unchecked: parts.date, time: parts.time, timeZone: parts.zone)
    }
}
