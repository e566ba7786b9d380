import Foundation

extension HKCategoryValueSleepAnalysis {
    /// Every value that means asleep (unspecified, core, deep, REM), as in HealthKit.
    public static var allAsleepValues: Set<HKCategoryValueSleepAnalysis> {
        [.asleepUnspecified, .asleepCore, .asleepDeep, .asleepREM]
    }

    /// Matches sleep-analysis samples whose value is one of `values`, as HealthKit's
    /// `HKCategoryValueSleepAnalysis.predicateForSamples(equalTo:)`.
    public static func predicateForSamples(equalTo values: Set<HKCategoryValueSleepAnalysis>) -> NSPredicate {
        HKQuery.predicateForCategorySamples(equalTo: Set(values.map(\.rawValue)))
    }
}
