import Foundation

/// Holds the user's Fitzpatrick skin type.
///
/// HealthKit returns this from `HKHealthStore`; apps do not create it.
public final class HKFitzpatrickSkinTypeObject: NSObject, @unchecked Sendable {
    /// The characteristic's value.
    public let skinType: HKFitzpatrickSkinType

    /// Wraps a value read from the store.
    init(skinType: HKFitzpatrickSkinType) {
        self.skinType = skinType
        super.init()
    }

    /// Two objects are equal when they hold the same value.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKFitzpatrickSkinTypeObject else {
            return false
        }
        return other.skinType == skinType
    }

    /// A hash consistent with `isEqual(_:)`.
    public override var hash: Int {
        skinType.rawValue
    }

    /// A short description such as `HKFitzpatrickSkinTypeObject(skinType: ...)`.
    public override var description: String {
        "HKFitzpatrickSkinTypeObject(skinType: \(skinType))"
    }
}
