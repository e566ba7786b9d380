import Foundation

/// A FHIR `instant`: a full date, a time with seconds (fraction optional) and a required zone.
///
/// Lexical form `YYYY-MM-DDThh:mm:ss(.f+)?(Z|±hh:mm)`. ``description`` reproduces the parsed text
/// exactly. Equality compares the lexical form, not the instant; ordering (`<`) compares instants.
///
/// The zone is kept as written in ``zone``; FHIRModels' Foundation ``timeZone`` and
/// ``originalTimeZoneString`` are views of it. The parts are mutable and
/// ``init(date:time:timezone:)`` does not throw, as in FHIRModels.
public struct Instant: FHIRPrimitiveValue {
    /// The calendar date (always full precision).
    public var date: InstantDate
    /// The time of day.
    public var time: FHIRTime
    /// The zone exactly as written (`Z`, `+00:00`, `-05:00`).
    public var zone: FHIRTimeZone

    /// Creates an instant from its parts, checking them.
    /// - Throws: ``FHIRPrimitiveError`` if the date lacks month or day or the zone is out of range.
    public init(date: FHIRDate, time: FHIRTime, zone: FHIRTimeZone) throws(FHIRPrimitiveError) {
        guard let month = date.month, let day = date.day else {
            throw FHIRPrimitiveError(type: "instant", reason: "an instant requires a full date")
        }
        guard zone.isValid else {
            throw FHIRPrimitiveError(type: "instant", reason: "time zone offset is out of range (at most 14:00)")
        }
        self.init(unchecked: InstantDate(year: date.year, month: month, day: day), time: time, timeZone: zone)
    }

    /// Creates an instant from FHIRModels' parts (a Foundation time zone), without checking them.
    /// The zone is stored as its offset at that date and time in whole minutes (UTC when FHIR
    /// cannot write it).
    public init(date: InstantDate, time: FHIRTime, timezone: TimeZone) {
        self.init(unchecked: date, time: time, timeZone: .utc)
        self.timeZone = timezone
    }

    init(unchecked date: InstantDate, time: FHIRTime, timeZone: FHIRTimeZone) {
        self.date = date
        self.time = time
        self.zone = timeZone
    }

    init(unchecked date: FHIRDate, time: FHIRTime, timeZone: FHIRTimeZone) {
        self.init(unchecked: InstantDate(year: date.year, month: date.month ?? 1, day: date.day ?? 1), time: time, timeZone: timeZone)
    }

    /// The zone as a Foundation time zone with a fixed offset (FHIRModels' `timeZone`). Setting it
    /// stores the offset the zone has at this instant's local date and time.
    public var timeZone: TimeZone {
        get { zone.timeZone ?? .gmt }
        set {
            let reference = TemporalConversion.date(date: date.fhirDate, time: time, timeZone: nil) ?? Date(timeIntervalSince1970: 0)
            zone = FHIRTimeZone(secondsFromGMT: newValue.secondsFromGMT(for: reference) / 60 * 60) ?? .utc
        }
    }

    /// The zone as written, `Z` or `±hh:mm` (FHIRModels' `originalTimeZoneString`).
    public var originalTimeZoneString: String? { zone.description }

    /// Whether the parts form an instant FHIR allows.
    public var isValid: Bool { date.isValid && time.isValid && zone.isValid }

    /// Parses a FHIR instant.
    /// - Throws: ``FHIRPrimitiveError`` naming what is wrong (never the text itself).
    public init(_ text: String) throws(FHIRPrimitiveError) {
        self = try LexicalScanner.scan(text, type: "instant", Self.parseWhole)
    }

    /// Parses the whole lexical form (nothing may follow it).
    static func parseWhole(_ scanner: inout LexicalScanner) throws(FHIRPrimitiveError) -> Instant {
        let date = try FHIRDate.parse(&scanner)
        guard date.isFullDate else { throw scanner.fail("an instant requires a full date") }
        try scanner.expect(UInt8(ascii: "T"), "'T' and a time")
        let time = try FHIRTime.parse(&scanner)
        guard !scanner.isAtEnd else { throw scanner.fail("an instant requires a time zone") }
        let zone = try FHIRTimeZone.parse(&scanner)
        try scanner.expectEnd()
        return Instant(unchecked: date, time: time, timeZone: zone)
    }

    /// Decodes a JSON string holding a FHIR instant.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        guard case .string(let text) = value else {
            throw LexicalScanner.wrongKind("instant", expected: "string", found: value)
        }
        try self.init(text)
    }

    /// Decodes the JSON string at `node` of a tape, scanning its bytes in place (no `String` is made).
    public init(fhirJSON tape: borrowing JSONTape, node: Int) throws(FHIRPrimitiveError) {
        if let value = try LexicalScanner.scan(tape, node, type: "instant", Self.parseWhole) {
            self = value
        } else {
            try self.init(fhirJSON: tape.scalar(at: node))
        }
    }

    /// The instant as a JSON string.
    public var fhirJSON: JSONValue { .string(description) }

    /// The lexical form, exactly as it was parsed.
    public var description: String {
        date.description + "T" + time.description + zone.description
    }

    /// The same value as a ``DateTime`` (every instant is a valid dateTime).
    public var dateTime: DateTime {
        DateTime(unchecked: date.fhirDate, time: time, timeZone: zone)
    }

    /// The instant as a Foundation date. Always non-nil for a valid value.
    public func asDate() -> Date? {
        TemporalConversion.date(date: date.fhirDate, time: time, timeZone: zone)
    }

    /// Full precision for `date` as seen in `timeZone`, with milliseconds when they are non-zero.
    /// A zero offset is written `Z`; instants outside years 0001–9999 are clamped.
    public init(_ date: Date, timeZone: TimeZone = .gmt) {
        let parts = TemporalConversion.components(of: date, in: timeZone)
        self.init(unchecked: parts.date, time: parts.time, timeZone: parts.zone)
    }
}
