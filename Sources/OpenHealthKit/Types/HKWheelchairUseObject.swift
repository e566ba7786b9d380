import Foundation

/// Holds whether the user uses a wheelchair.
///
/// HealthKit returns this from `HKHealthStore`; apps do not create it.
public final class HKWheelchairUseObject: NSObject, @unchecked Sendable {
    /// The characteristic's value.
    public let wheelchairUse: HKWheelchairUse

    /// Wraps a value read from the store.
    init(wheelchairUse: HKWheelchairUse) {
        self.wheelchairUse = wheelchairUse
        super.init()
    }

    /// Two objects are equal when they hold the same value.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKWheelchairUseObject else {
            return false
        }
        return other.wheelchairUse == wheelchairUse
    }

    /// A hash consistent with `isEqual(_:)`.
    public override var hash: Int {
        wheelchairUse.rawValue
    }

    /// A short description such as `HKWheelchairUseObject(wheelchairUse: ...)`.
    public override var description: String {
        "HKWheelchairUseObject(wheelchairUse: \(wheelchairUse))"
    }
}
