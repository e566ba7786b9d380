import Foundation

/// A category value enumeration that builds predicates on category samples' values (HealthKit's
/// `HKCategoryValuePredicateProviding`, iOS 16).
///
/// ```swift
/// let deep = HKCategoryValueSleepAnalysis.predicateForSamples(.equalTo, value: .asleepDeep)
/// let asleep = HKCategoryValueSleepAnalysis.predicateForSamples(equalTo: HKCategoryValueSleepAnalysis.allAsleepValues)
/// ```
///
/// Every category value enumeration Apple conforms conforms here: `HKCategoryValue`,
/// `HKCategoryValueAppetiteChanges`, `HKCategoryValueAppleStandHour`,
/// `HKCategoryValueAppleWalkingSteadinessEvent`, `HKCategoryValueCervicalMucusQuality`,
/// `HKCategoryValueContraceptive`, `HKCategoryValueEnvironmentalAudioExposureEvent`,
/// `HKCategoryValueHeadphoneAudioExposureEvent`, `HKCategoryValueLowCardioFitnessEvent`,
/// `HKCategoryValueMenstrualFlow`, `HKCategoryValueOvulationTestResult`,
/// `HKCategoryValuePregnancyTestResult`, `HKCategoryValuePresence`,
/// `HKCategoryValueProgesteroneTestResult`, `HKCategoryValueSeverity`,
/// `HKCategoryValueSleepAnalysis` and `HKCategoryValueVaginalBleeding` (not the deprecated
/// `HKCategoryValueAudioExposureEvent`, as in HealthKit).
public protocol HKCategoryValuePredicateProviding: Hashable, RawRepresentable {}

extension HKCategoryValuePredicateProviding where RawValue == Int {
    /// Matches category samples whose value compares with `value` by `operatorType`, as
    /// HealthKit's `predicateForSamples(_:value:)`.
    /// - Parameters:
    ///   - operatorType: How the sample's value must compare with `value` (by raw value).
    ///   - value: The value to compare with.
    public static func predicateForSamples(_ operatorType: HKComparisonOperator, value: Self) -> NSPredicate {
        HKQuery.predicateForCategorySamples(with: operatorType, value: value.rawValue)
    }

    /// Matches category samples whose value is one of `values`, as HealthKit's
    /// `predicateForSamples(equalTo:)`.
    /// - Parameter values: The values a sample may have.
    public static func predicateForSamples(equalTo values: Set<Self>) -> NSPredicate {
        HKQuery.predicateForCategorySamples(equalTo: Set(values.map(\.rawValue)))
    }
}

extension HKCategoryValueSleepAnalysis {
    /// Every value that means asleep (unspecified, core, deep, REM), as in HealthKit.
    public static var allAsleepValues: Set<HKCategoryValueSleepAnalysis> {
        [.asleepUnspecified, .asleepCore, .asleepDeep, .asleepREM]
    }
}

extension HKCategoryValue: HKCategoryValuePredicateProviding {}
extension HKCategoryValueAppetiteChanges: HKCategoryValuePredicateProviding {}
extension HKCategoryValueAppleStandHour: HKCategoryValuePredicateProviding {}
extension HKCategoryValueAppleWalkingSteadinessEvent: HKCategoryValuePredicateProviding {}
extension HKCategoryValueCervicalMucusQuality: HKCategoryValuePredicateProviding {}
extension HKCategoryValueContraceptive: HKCategoryValuePredicateProviding {}
extension HKCategoryValueEnvironmentalAudioExposureEvent: HKCategoryValuePredicateProviding {}
extension HKCategoryValueHeadphoneAudioExposureEvent: HKCategoryValuePredicateProviding {}
extension HKCategoryValueLowCardioFitnessEvent: HKCategoryValuePredicateProviding {}
extension HKCategoryValueMenstrualFlow: HKCategoryValuePredicateProviding {}
extension HKCategoryValueOvulationTestResult: HKCategoryValuePredicateProviding {}
extension HKCategoryValuePregnancyTestResult: HKCategoryValuePredicateProviding {}
extension HKCategoryValuePresence: HKCategoryValuePredicateProviding {}
extension HKCategoryValueProgesteroneTestResult: HKCategoryValuePredicateProviding {}
extension HKCategoryValueSeverity: HKCategoryValuePredicateProviding {}
extension HKCategoryValueSleepAnalysis: HKCategoryValuePredicateProviding {}
extension HKCategoryValueVaginalBleeding: HKCategoryValuePredicateProviding {}
