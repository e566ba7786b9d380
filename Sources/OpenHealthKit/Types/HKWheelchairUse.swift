import Foundation

/// Whether the user uses a wheelchair.
public enum HKWheelchairUse: Int, Sendable, Codable, CaseIterable {
    /// Not set, or read access was not granted.
    case notSet = 0

    /// Does not use a wheelchair.
    case no = 1

    /// Uses a wheelchair.
    case yes = 2
}
