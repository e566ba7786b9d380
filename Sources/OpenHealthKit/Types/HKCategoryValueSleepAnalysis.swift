import Foundation

/// Sleep analysis values. Overlapping in-bed and asleep samples together describe a night.
public enum HKCategoryValueSleepAnalysis: Int, Sendable, Codable, CaseIterable {
    /// The user is in bed.
    case inBed = 0

    /// The user is asleep, stage unspecified.
    case asleepUnspecified = 1

    /// The user is awake.
    case awake = 2

    /// Core sleep (AASM stages 1 and 2).
    case asleepCore = 3

    /// Deep sleep (AASM stage 3).
    case asleepDeep = 4

    /// REM sleep.
    case asleepREM = 5

    /// The pre-iOS 16 name of `asleepUnspecified`.
    @available(*, deprecated, renamed: "asleepUnspecified")
    public static let asleep = HKCategoryValueSleepAnalysis.asleepUnspecified
}
