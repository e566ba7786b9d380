import Foundation

/// Whether a symptom is present.
public enum HKCategoryValuePresence: Int, Sendable, Codable, CaseIterable {
    /// Present.
    case present = 0

    /// Not present.
    case notPresent = 1
}
