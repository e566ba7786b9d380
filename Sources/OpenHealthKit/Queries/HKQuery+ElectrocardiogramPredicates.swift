import Foundation

/// One electrocardiogram condition of a predicate, decided on the decrypted sample (the
/// classification and symptoms status are sealed).
enum ElectrocardiogramMatch: Sendable {
    case classification(HKElectrocardiogram.Classification)
    case symptomsStatus(HKElectrocardiogram.SymptomsStatus)

    /// Whether `electrocardiogram` meets the condition.
    func matches(_ electrocardiogram: HKElectrocardiogram) -> Bool {
        switch self {
        case .classification(let classification): return electrocardiogram.classification == classification
        case .symptomsStatus(let status): return electrocardiogram.symptomsStatus == status
        }
    }
}

/// The key path of an electrocardiogram's average heart rate in predicate format strings
/// (HealthKit's `HKPredicateKeyPathAverageHeartRate`, iOS 14, with HealthKit's value).
///
/// swift-corelibs-foundation cannot parse predicate format strings (`NSPredicate(format:)`), so on
/// this platform filter with `HKQuery.predicateForElectrocardiograms(classification:)` and
/// `(symptomsStatus:)`.
public let HKPredicateKeyPathAverageHeartRate = "ecg_average_heart_rate"
/// The key path of an electrocardiogram's classification in predicate format strings (HealthKit's
/// `HKPredicateKeyPathECGClassification`, iOS 14): what `predicateForElectrocardiograms(classification:)` matches.
public let HKPredicateKeyPathECGClassification = "ecg_public_classification"
/// The key path of an electrocardiogram's symptoms status in predicate format strings (HealthKit's
/// `HKPredicateKeyPathECGSymptomsStatus`, iOS 14): what `predicateForElectrocardiograms(symptomsStatus:)` matches.
public let HKPredicateKeyPathECGSymptomsStatus = "ecg_symptoms_status"

extension HKQuery {
    /// Matches electrocardiograms with one classification, as HealthKit's
    /// `predicateForElectrocardiograms(classification:)`.
    /// - Parameter classification: The classification the sample must have.
    public class func predicateForElectrocardiograms(classification: HKElectrocardiogram.Classification) -> NSPredicate {
        HKQueryPredicate(.electrocardiogram(.classification(classification)))
    }

    /// Matches electrocardiograms with one symptoms status, as HealthKit's
    /// `predicateForElectrocardiograms(symptomsStatus:)`.
    /// - Parameter symptomsStatus: The symptoms status the sample must have.
    public class func predicateForElectrocardiograms(symptomsStatus: HKElectrocardiogram.SymptomsStatus) -> NSPredicate {
        HKQueryPredicate(.electrocardiogram(.symptomsStatus(symptomsStatus)))
    }
}
