import Foundation

/// Holds the user's blood type.
///
/// HealthKit returns this from `HKHealthStore`; apps do not create it.
public final class HKBloodTypeObject: NSObject, @unchecked Sendable {
    /// The characteristic's value.
    public let bloodType: HKBloodType

    /// Wraps a value read from the store.
    init(bloodType: HKBloodType) {
        self.bloodType = bloodType
        super.init()
    }

    /// Two objects are equal when they hold the same value.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKBloodTypeObject else {
            return false
        }
        return other.bloodType == bloodType
    }

    /// A hash consistent with `isEqual(_:)`.
    public override var hash: Int {
        bloodType.rawValue
    }

    /// A short description such as `HKBloodTypeObject(bloodType: ...)`.
    public override var description: String {
        "HKBloodTypeObject(bloodType: \(bloodType))"
    }
}
