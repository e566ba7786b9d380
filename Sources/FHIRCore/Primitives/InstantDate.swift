import CommonSupport
import Foundation

/// The date of an ``Instant``: always year, month and day (FHIRModels' `InstantDate`).
///
/// Lexical form `YYYY-MM-DD`. Built by hand it is not checked (a month over 12 or a day over 31
/// is ignored); ``isValid`` tells whether it names a real day.
public struct InstantDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The year, 1 through 9999 in a valid date.
    public var year: Int
    /// The month, 1 through 12. Setting a value over 12 is ignored.
    public var month: UInt8 {
        didSet { if month > 12 { month = oldValue } }
    }
    /// The day of the month. Setting a value over 31 is ignored.
    public var day: UInt8 {
        didSet { if day > 31 { day = oldValue } }
    }

    /// Creates the date without checking it beyond FHIRModels' caps (month ≤ 12, day ≤ 31).
    public init(year: Int, month: UInt8, day: UInt8) {
        self.year = year
        self.month = min(month, 12)
        self.day = min(day, 31)
    }

    /// Parses `YYYY-MM-DD`.
    /// - Throws: ``FHIRPrimitiveError`` naming what is wrong (never the text itself).
    public init(_ text: String) throws(FHIRPrimitiveError) {
        let date = try FHIRDate(text)
        guard let month = date.month, let day = date.day else {
            throw FHIRPrimitiveError(type: "instant", reason: "an instant requires a full date")
        }
        self.init(year: date.year, month: month, day: day)
    }

    /// The same day as a ``FHIRDate``.
    public var fhirDate: FHIRDate { FHIRDate(unchecked: year, month: month, day: day) }

    /// Whether it names a real day in years 0001–9999.
    public var isValid: Bool { fhirDate.isValid && month >= 1 && day >= 1 }

    /// `YYYY-MM-DD`.
    public var description: String { fhirDate.description }

    public static func < (lhs: InstantDate, rhs: InstantDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

extension InstantDate: ExpressibleByStringLiteral {
    /// A date literal such as `"2020-03-12"`; an invalid literal is a programming error and stops.
    public init(stringLiteral value: String) {
        do {
            self = try InstantDate(value)
        } catch {
            preconditionFailure("invalid instant date literal: \(error)")
        }
    }
}
