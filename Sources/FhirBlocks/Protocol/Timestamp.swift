import CommonSupport

/// A point in time as the protocol carries it: milliseconds since 1970-01-01T00:00:00Z (UTC).
///
/// The pure core never reads a clock; callers pass `now` as a `Timestamp`.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch.
    public var millisecondsSince1970: Int64

    /// Creates a timestamp from milliseconds since the epoch.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// Creates a timestamp from whole seconds since the epoch.
    public init(secondsSince1970: Int64) {
        millisecondsSince1970 = secondsSince1970.multipliedReportingOverflow(by: 1000).overflow
            ? (secondsSince1970 < 0 ? Int64.min : Int64.max)
            : secondsSince1970 * 1000
    }

    /// Whole seconds since the epoch (rounded toward negative infinity).
    public var secondsSince1970: Int64 {
        let (quotient, remainder) = millisecondsSince1970.quotientAndRemainder(dividingBy: 1000)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// This timestamp moved by a number of seconds (saturating).
    public func adding(seconds: Int64) -> Timestamp {
        adding(milliseconds: seconds.multipliedReportingOverflow(by: 1000).overflow
               ? (seconds < 0 ? Int64.min : Int64.max) : seconds * 1000)
    }

    /// This timestamp moved by a number of milliseconds (saturating).
    public func adding(milliseconds: Int64) -> Timestamp {
        let (sum, overflow) = millisecondsSince1970.addingReportingOverflow(milliseconds)
        return Timestamp(millisecondsSince1970: overflow ? (milliseconds < 0 ? Int64.min : Int64.max) : sum)
    }

    /// Signed milliseconds from `other` to `self` (saturating).
    public func milliseconds(since other: Timestamp) -> Int64 {
        let (difference, overflow) = millisecondsSince1970.subtractingReportingOverflow(other.millisecondsSince1970)
        return overflow ? (other.millisecondsSince1970 < 0 ? Int64.max : Int64.min) : difference
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    // MARK: Wire text

    /// Reads the wire form `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` exactly (24 characters, UTC, years
    /// 0001–9999). Returns nil for anything else, including impossible dates.
    public init?(wireText text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 24, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"),
              utf8[10] == UInt8(ascii: "T"), utf8[13] == UInt8(ascii: ":"), utf8[16] == UInt8(ascii: ":"),
              utf8[19] == UInt8(ascii: "."), utf8[23] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let byte = utf8[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              let millisecond = number(20..<23) else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= Int64(CivilCalendar.daysInMonth(Int(month), year: Int(year))),
              hour < 24, minute < 60, second < 60 else { return nil }
        let days = Int64(CivilCalendar.daysSinceEpoch(year: Int(year), month: Int(month), day: Int(day)))
        millisecondsSince1970 = ((days * 86_400 + hour * 3_600 + minute * 60 + second) * 1000) + millisecond
    }

    /// The wire form `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` (years outside 0001–9999 are clamped).
    public var wireText: String {
        ISODateText.string(millisecondsSince1970: min(max(millisecondsSince1970, Self.minimumWire), Self.maximumWire))
    }

    /// The wire form.
    public var description: String { wireText }

    private static let minimumWire: Int64 = -62_135_596_800_000 // 0001-01-01T00:00:00.000Z
    private static let maximumWire: Int64 = 253_402_300_799_999 // 9999-12-31T23:59:59.999Z
}
