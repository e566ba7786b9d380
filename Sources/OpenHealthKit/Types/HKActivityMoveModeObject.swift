import Foundation

/// Holds the Activity move ring's mode.
///
/// HealthKit returns this from `HKHealthStore`; apps do not create it.
public final class HKActivityMoveModeObject: NSObject, @unchecked Sendable {
    /// The characteristic's value.
    public let activityMoveMode: HKActivityMoveMode

    /// Wraps a value read from the store.
    init(activityMoveMode: HKActivityMoveMode) {
        self.activityMoveMode = activityMoveMode
        super.init()
    }

    /// Two objects are equal when they hold the same value.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKActivityMoveModeObject else {
            return false
        }
        return other.activityMoveMode == activityMoveMode
    }

    /// A hash consistent with `isEqual(_:)`.
    public override var hash: Int {
        activityMoveMode.rawValue
    }

    /// A short description such as `HKActivityMoveModeObject(activityMoveMode: ...)`.
    public override var description: String {
        "HKActivityMoveModeObject(activityMoveMode: \(activityMoveMode))"
    }
}
