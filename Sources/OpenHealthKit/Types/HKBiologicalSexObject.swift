import Foundation

/// Holds the user's biological sex.
///
/// HealthKit returns this from `HKHealthStore`; apps do not create it.
public final class HKBiologicalSexObject: NSObject, @unchecked Sendable {
    /// The characteristic's value.
    public let biologicalSex: HKBiologicalSex

    /// Wraps a value read from the store.
    init(biologicalSex: HKBiologicalSex) {
        self.biologicalSex = biologicalSex
        super.init()
    }

    /// Two objects are equal when they hold the same value.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKBiologicalSexObject else {
            return false
        }
        return other.biologicalSex == biologicalSex
    }

    /// A hash consistent with `isEqual(_:)`.
    public override var hash: Int {
        biologicalSex.rawValue
    }

    /// A short description such as `HKBiologicalSexObject(biologicalSex: ...)`.
    public override var description: String {
        "HKBiologicalSexObject(biologicalSex: \(biologicalSex))"
    }
}
