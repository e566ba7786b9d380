import Foundation

/// Who a verifiable clinical record is about (HealthKit's `HKVerifiableClinicalRecordSubject`).
public final class HKVerifiableClinicalRecordSubject: NSObject, @unchecked Sendable {
    /// The subject's full name as the card gives it.
    public let fullName: String
    /// The subject's date of birth, with the precision the card gives (year, month, day).
    public let dateOfBirthComponents: DateComponents?

    /// Creates a subject (OpenHealthKit API).
    public init(fullName: String, dateOfBirthComponents: DateComponents?) {
        self.fullName = fullName
        self.dateOfBirthComponents = dateOfBirthComponents
        super.init()
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKVerifiableClinicalRecordSubject else { return false }
        return other.fullName == fullName && other.dateOfBirthComponents == dateOfBirthComponents
    }

    public override var hash: Int { fullName.hashValue }
}
