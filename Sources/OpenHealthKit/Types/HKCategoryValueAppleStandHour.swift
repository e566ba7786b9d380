import Foundation

/// Apple stand hour values.
public enum HKCategoryValueAppleStandHour: Int, Sendable, Codable, CaseIterable {
    /// The user stood and moved for at least one minute during the hour.
    case stood = 0

    /// The user did not stand and move for a continuous minute during the hour.
    case idle = 1
}
