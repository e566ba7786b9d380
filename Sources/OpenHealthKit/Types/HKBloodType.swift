import Foundation

/// The user's blood type.
public enum HKBloodType: Int, Sendable, Codable, CaseIterable {
    /// Not set, or read access was not granted.
    case notSet = 0

    /// A+.
    case aPositive = 1

    /// A-.
    case aNegative = 2

    /// B+.
    case bPositive = 3

    /// B-.
    case bNegative = 4

    /// AB+.
    case abPositive = 5

    /// AB-.
    case abNegative = 6

    /// O+.
    case oPositive = 7

    /// O-.
    case oNegative = 8
}
