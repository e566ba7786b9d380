import Foundation

/// Results of a home progesterone (ovulation confirmation) test.
public enum HKCategoryValueProgesteroneTestResult: Int, Sendable, Codable, CaseIterable {
    /// Negative.
    case negative = 1

    /// Positive.
    case positive = 2

    /// The result could not be read.
    case indeterminate = 3
}
