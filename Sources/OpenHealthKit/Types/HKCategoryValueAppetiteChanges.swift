import Foundation

/// Direction of an appetite change.
public enum HKCategoryValueAppetiteChanges: Int, Sendable, Codable, CaseIterable {
    /// Changed, direction not given.
    case unspecified = 0

    /// No change.
    case noChange = 1

    /// Decreased.
    case decreased = 2

    /// Increased.
    case increased = 3
}
