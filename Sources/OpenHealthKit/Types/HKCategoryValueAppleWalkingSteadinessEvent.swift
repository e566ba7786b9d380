import Foundation

/// Kinds of Apple walking steadiness event.
public enum HKCategoryValueAppleWalkingSteadinessEvent: Int, Sendable, Codable, CaseIterable {
    /// Walking steadiness became low.
    case initialLow = 1

    /// Walking steadiness became very low.
    case initialVeryLow = 2

    /// Walking steadiness stayed low over a significant period.
    case repeatLow = 3

    /// Walking steadiness stayed very low over a significant period.
    case repeatVeryLow = 4
}
