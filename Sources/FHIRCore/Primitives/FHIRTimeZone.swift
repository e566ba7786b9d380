import CommonSupport
import Foundation

/// The time zone designator of a FHIR `dateTime` or `instant`: `Z` or `±hh:mm`.
///
/// The sign is stored explicitly so that `+00:00` and `-00:00` (and `Z`) each survive exactly as
/// written. Valid offsets run from `-14:00` to `+14:00` with minutes 00-59; the enum itself can
/// hold out-of-range numbers, which ``isValid`` reports and ``DateTime``/``Instant`` reject.
public enum FHIRTimeZone: Sendable, Hashable, CustomStringConvertible {
    /// UTC, written `Z`.
    case utc
    /// A numeric offset from UTC, written `+hh:mm` or `-hh:mm`.
    case offset(sign: Sign, hours: UInt8, minutes: UInt8)

    /// The sign of a numeric offset.
    public enum Sign: Sendable, Hashable {
        /// `+`: ahead of UTC (east).
        case plus
        /// `-`: behind UTC (west).
        case minus
    }

    /// The offset in seconds (positive east of Greenwich); `Z`, `+00:00` and `-00:00` give 0.
    public var secondsFromGMT: Int {
        switch self {
        case .utc:
            return 0
        case .offset(let sign, let hours, let minutes):
            let magnitude = Int(hours) * 3600 + Int(minutes) * 60
            return sign == .minus ? -magnitude : magnitude
        }
    }

    /// Whether the offset is within FHIR's range (at most 14:00, minutes 00-59).
    public var isValid: Bool {
        switch self {
        case .utc:
            return true
        case .offset(_, let hours, let minutes):
            return minutes <= 59 && (hours < 14 || (hours == 14 && minutes == 0))
        }
    }

    /// The designator text: `Z` or `±hh:mm`.
    public var description: String {
        switch self {
        case .utc:
            return "Z"
        case .offset(let sign, let hours, let minutes):
            return (sign == .minus ? "-" : "+") + CivilCalendar.padded(Int(hours), width: 2) + ":"
                + CivilCalendar.padded(Int(minutes), width: 2)
        }
    }

    /// A Foundation time zone with this fixed offset.
    public var timeZone: TimeZone? {
        TimeZone(secondsFromGMT: secondsFromGMT)
    }

    /// The zone for an offset: `.utc` for 0, otherwise `±hh:mm`.
    /// Returns `nil` unless the offset is a whole number of minutes within ±14:00.
    public init?(secondsFromGMT seconds: Int) {
        guard seconds >= -14 * 3600, seconds <= 14 * 3600, seconds % 60 == 0 else { return nil }
        if seconds == 0 {
            self = .utc
            return
        }
        let magnitude = abs(seconds) / 60
        self = .offset(sign: seconds < 0 ? .minus : .plus, hours: UInt8(magnitude / 60), minutes: UInt8(magnitude % 60))
    }

    /// Parses `Z`, `+hh:mm` or `-hh:mm`.
    /// - Throws: ``FHIRPrimitiveError`` (type `"dateTime"`) naming what is wrong.
    public init(_ text: String) throws(FHIRPrimitiveError) {
        self = try LexicalScanner.scan(text, type: "dateTime") { (scanner) throws(FHIRPrimitiveError) in
            let zone = try FHIRTimeZone.parse(&scanner)
            try scanner.expectEnd()
            return zone
        }
    }

    /// Reads `Z` or `±hh:mm`.
    static func parse(_ scanner: inout LexicalScanner) throws(FHIRPrimitiveError) -> FHIRTimeZone {
        if scanner.consume(UInt8(ascii: "Z")) { return .utc }
        let sign: Sign
        if scanner.consume(UInt8(ascii: "+")) {
            sign = .plus
        } else if scanner.consume(UInt8(ascii: "-")) {
            sign = .minus
        } else {
            throw scanner.fail(scanner.isAtEnd ? "time zone is missing" : "time zone must be 'Z' or an offset like +01:00")
        }
        let hours = try scanner.digits(2, "time zone hours")
        try scanner.expect(UInt8(ascii: ":"), "':' in the time zone offset")
        let minutes = try scanner.digits(2, "time zone minutes")
        let zone = FHIRTimeZone.offset(sign: sign, hours: UInt8(hours), minutes: UInt8(minutes))
        guard zone.isValid else { throw scanner.fail("time zone offset is out of range (at most 14:00)") }
        return zone
    }
}
