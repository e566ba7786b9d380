import Foundation

/// Results of a home ovulation test.
public enum HKCategoryValueOvulationTestResult: Int, Sendable, Codable, CaseIterable {
    /// No hormone surge detected.
    case negative = 1

    /// A luteinizing hormone surge was detected.
    case luteinizingHormoneSurge = 2

    /// The result could not be read.
    case indeterminate = 3

    /// An estrogen surge was detected.
    case estrogenSurge = 4

    /// The pre-iOS 13 name of `luteinizingHormoneSurge`.
    @available(*, deprecated, renamed: "luteinizingHormoneSurge")
    public static let positive = HKCategoryValueOvulationTestResult.luteinizingHormoneSurge
}
