import Foundation

/// A FHIR `instant`: a full date, a time with seconds (fraction optional) and a required zone.
///
/// Lexical form `YYYY-MM-DDThh:mm:ss(.f+)?(Z|±hh:mm)`. ``description`` reproduces the parsed text
/// exactly. Equality compares the lexical form, not the instant.
public struct Instant: FHIRPrimitiveValue {
    /// The calendar date (always full precision).
    public let date: FHIRDate
    /// The time of day.
    public let time: FHIRTime
    /// The time zone.
    public let timeZone: FHIRTimeZone

    /// Creates an instant from its parts.
    /// - Throws: ``FHIRPrimitiveError`` if the date lacks month or day or the zone is out of range.
    public init(date: FHIRDate, time: FHIRTime, timeZone: FHIRTimeZone) throws(FHIRPrimitiveError) {
        guard date.isFullDate else { throw FHIRPrimitiveError(type: "instant", reason: "an instant requires a full date") }
        guard timeZone.isValid else {
            throw FHIRPrimitiveError(type: "instant", reason: "time zone offset is out of range (at most 14:00)")
        }
        self.init(unchecked: date, time: time, timeZone: timeZone)
    }

    init(unchecked date: FHIRDate, time: FHIRTime, timeZone: FHIRTimeZone) {
        self.date = date
        self.time = time
        self.timeZone = timeZone
    }

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
    public init(fhirJSON tape: JSONTape, node: Int) throws(FHIRPrimitiveError) {
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
        date.description + "T" + time.description + timeZone.description
    }

    /// The same value as a ``DateTime`` (every instant is a valid dateTime).
    public var dateTime: DateTime {
        DateTime(unchecked: date, time: time, timeZone: timeZone)
    }

    /// The instant as a Foundation date. Always non-nil for a valid value.
    public func asDate() -> Date? {
        TemporalConversion.date(date: date, time: time, timeZone: timeZone)
    }

    /// Full precision for `date` as seen in `timeZone`, with milliseconds when they are non-zero.
    /// A zero offset is written `Z`; instants outside years 0001–9999 are clamped.
    public init(_ date: Date, timeZone: TimeZone = .gmt) {
        let parts = TemporalConversion.components(of: date, in: timeZone)
        self.init(unchecked: parts.date, time: parts.time, timeZone: parts.zone)
    }
}
