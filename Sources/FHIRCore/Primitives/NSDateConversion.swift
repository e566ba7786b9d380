import Foundation

/// A FHIR temporal value that names a point in time Foundation can hold (FHIRModels'
/// `ExpressibleAsNSDate`): ``DateTime``, ``FHIRDate`` and ``Instant``.
public protocol ExpressibleAsNSDate {
    /// The start of the period the value denotes.
    func asNSDate() throws -> Date
}

extension ExpressibleAsNSDate {
    /// Orders two temporal values by the instants they start at (FHIRModels' `compare(_:)`).
    /// - Throws: ``NSDateConversionError`` when either names no point in time.
    public func compare(_ other: any ExpressibleAsNSDate) throws -> ComparisonResult {
        try asNSDate().compare(try other.asNSDate())
    }
}

/// A FHIR temporal value made from a Foundation date seen in a time zone (FHIRModels'
/// `ConstructibleFromNSDate`).
public protocol ConstructibleFromNSDate {
    /// The value `date` has in `timeZone`.
    init(date: Date, timeZone: TimeZone) throws
}

/// A date, time or instant that names no point in time Foundation can hold (built by hand with
/// components out of range). It names the type, never the value.
public struct NSDateConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The FHIR type that could not be converted.
    public let type: String
    public var description: String { "this \(type) names no point in time a Date can hold" }
}

extension DateTime: ExpressibleAsNSDate, ConstructibleFromNSDate {
    /// The start of the period this value denotes (FHIRModels' spelling of ``asDate()``).
    /// - Throws: ``NSDateConversionError`` when the parts are out of range.
    public func asNSDate() throws(NSDateConversionError) -> Date {
        guard let date = asDate() else { throw NSDateConversionError(type: "DateTime") }
        return date
    }

    /// Full precision for `date` seen in `timeZone` (FHIRModels' initializer; ours is
    /// ``init(_:timeZone:)``, which defaults to UTC). It does not throw.
    public init(date: Date, timeZone: TimeZone = .current) throws {
        self.init(date, timeZone: timeZone)
    }
}

extension FHIRDate: ExpressibleAsNSDate, ConstructibleFromNSDate {
    /// The start of the day (or month, or year) in UTC (FHIRModels' spelling of ``asDate()``).
    /// - Throws: ``NSDateConversionError`` when the parts are out of range.
    public func asNSDate() throws(NSDateConversionError) -> Date {
        guard let date = asDate() else { throw NSDateConversionError(type: "FHIRDate") }
        return date
    }

    /// The calendar day on which `date` falls in `timeZone` (FHIRModels' initializer). It does
    /// not throw.
    public init(date: Date, timeZone: TimeZone = .current) throws {
        self.init(date, timeZone: timeZone)
    }
}

extension Instant: ExpressibleAsNSDate, ConstructibleFromNSDate {
    /// The instant as a Foundation date (FHIRModels' spelling of ``asDate()``).
    /// - Throws: ``NSDateConversionError`` when the parts are out of range.
    public func asNSDate() throws(NSDateConversionError) -> Date {
        guard let date = asDate() else { throw NSDateConversionError(type: "Instant") }
        return date
    }

    /// Full precision for `date` seen in `timeZone` (FHIRModels' initializer). It does not throw.
    public init(date: Date, timeZone: TimeZone = .current) throws {
        self.init(date, timeZone: timeZone)
    }
}

extension FHIRTime: ConstructibleFromNSDate {
    /// The time of day of `date` in `timeZone`, with milliseconds when they are non-zero
    /// (FHIRModels' initializer). It does not throw.
    public init(date: Date, timeZone: TimeZone = .current) throws {
        self = TemporalConversion.components(of: date, in: timeZone).time
    }
}

// Ordering by the instant a value starts at, as FHIRModels orders them. Equality stays lexical
// (`2020-01-01T00:00:00Z` and `2020-01-01T01:00:00+01:00` are neither equal nor ordered).

extension DateTime: Comparable {
    public static func < (lhs: DateTime, rhs: DateTime) -> Bool { TemporalConversion.precedes(lhs.asDate(), rhs.asDate()) }
}

extension FHIRDate: Comparable {
    public static func < (lhs: FHIRDate, rhs: FHIRDate) -> Bool { TemporalConversion.precedes(lhs.asDate(), rhs.asDate()) }
}

extension Instant: Comparable {
    public static func < (lhs: Instant, rhs: Instant) -> Bool { TemporalConversion.precedes(lhs.asDate(), rhs.asDate()) }
}

extension FHIRTime: Comparable {
    public static func < (lhs: FHIRTime, rhs: FHIRTime) -> Bool { lhs.secondsSinceMidnight < rhs.secondsSinceMidnight }
}

// Literals, as in FHIRModels (`observation.effective = .dateTime("2020-03-12T12:33:54Z")`). An
// invalid literal is a programming error and stops; text from outside goes through the throwing
// `init(_:)`.

extension DateTime: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        do { self = try DateTime(value) } catch { preconditionFailure("invalid dateTime literal: \(error)") }
    }
}

extension FHIRDate: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        do { self = try FHIRDate(value) } catch { preconditionFailure("invalid date literal: \(error)") }
    }
}

extension FHIRTime: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        do { self = try FHIRTime(value) } catch { preconditionFailure("invalid time literal: \(error)") }
    }
}

extension Instant: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        do { self = try Instant(value) } catch { preconditionFailure("invalid instant literal: \(error)") }
    }
}
