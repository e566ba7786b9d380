import Foundation

/// Results of a home pregnancy (hCG) test.
public enum HKCategoryValuePregnancyTestResult: Int, Sendable, Codable, CaseIterable {
    /// Negative.
    case negative = 1

    /// Positive.
    case positive = 2

    /// The result could not be read.
    case indeterminate = 3
}
