import Foundation

/// Severity of a symptom.
public enum HKCategoryValueSeverity: Int, Sendable, Codable, CaseIterable {
    /// Present, severity not given.
    case unspecified = 0

    /// Not present.
    case notPresent = 1

    /// Mild.
    case mild = 2

    /// Moderate.
    case moderate = 3

    /// Severe.
    case severe = 4
}
