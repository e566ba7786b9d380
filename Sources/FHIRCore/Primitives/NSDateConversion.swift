import Foundation

/// A date, time or instant that names no point in time Foundation can hold (FHIRModels'
/// `asNSDate()` throws then; ours return `Date?` from ``DateTime/asDate()``).
public struct NSDateConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The FHIR type that could not be converted.
    public let type: String
    public var description: String { "this \(type) names no point in time a Date can hold" }
}

// FHIRModels' spelling of the conversions to Foundation: `try dateTime.asNSDate()`.

extension DateTime {
    /// The start of the period this value denotes, as an `NSDate` (FHIRModels' spelling of
    /// ``asDate()``).
    public func asNSDate() throws(NSDateConversionError) -> NSDate {
        guard let date = asDate() else { throw NSDateConversionError(type: "DateTime") }
        return date as NSDate
    }
}

extension FHIRDate {
    /// The start of the day (or month, or year) this value denotes, as an `NSDate` (FHIRModels'
    /// spelling of ``asDate()``).
    public func asNSDate() throws(NSDateConversionError) -> NSDate {
        guard let date = asDate() else { throw NSDateConversionError(type: "FHIRDate") }
        return date as NSDate
    }
}

extension Instant {
    /// The instant as an `NSDate` (FHIRModels' spelling of ``asDate()``).
    public func asNSDate() throws(NSDateConversionError) -> NSDate {
        guard let date = asDate() else { throw NSDateConversionError(type: "Instant") }
        return date as NSDate
    }
}
