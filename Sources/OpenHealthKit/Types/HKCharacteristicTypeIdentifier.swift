import Foundation

/// Identifies a characteristic type: a fact about the user that rarely changes, set in the Health app.
///
/// Mirrors HealthKit's `HKCharacteristicTypeIdentifier` string enum; the raw value is the
/// Objective-C constant's string, e.g. `"HKCharacteristicTypeIdentifierBiologicalSex"`.
public struct HKCharacteristicTypeIdentifier: RawRepresentable, Hashable, Sendable, Codable {
    /// The identifier string, exactly as HealthKit spells it.
    public let rawValue: String

    /// Creates an identifier from its raw string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates an identifier from its raw string.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }
}

extension HKCharacteristicTypeIdentifier {
    /// The move ring's mode (`HKActivityMoveModeObject`).
    public static let activityMoveMode = HKCharacteristicTypeIdentifier(rawValue: "HKCharacteristicTypeIdentifierActivityMoveMode")

    /// Biological sex (`HKBiologicalSexObject`).
    public static let biologicalSex = HKCharacteristicTypeIdentifier(rawValue: "HKCharacteristicTypeIdentifierBiologicalSex")

    /// Blood type (`HKBloodTypeObject`).
    public static let bloodType = HKCharacteristicTypeIdentifier(rawValue: "HKCharacteristicTypeIdentifierBloodType")

    /// Date of birth (`DateComponents`).
    public static let dateOfBirth = HKCharacteristicTypeIdentifier(rawValue: "HKCharacteristicTypeIdentifierDateOfBirth")

    /// Fitzpatrick skin type (`HKFitzpatrickSkinTypeObject`).
    public static let fitzpatrickSkinType = HKCharacteristicTypeIdentifier(rawValue: "HKCharacteristicTypeIdentifierFitzpatrickSkinType")

    /// Wheelchair use (`HKWheelchairUseObject`).
    public static let wheelchairUse = HKCharacteristicTypeIdentifier(rawValue: "HKCharacteristicTypeIdentifierWheelchairUse")
}

extension HKCharacteristicTypeIdentifier {
    /// Every characteristic identifier declared above.
    static let allKnown: [HKCharacteristicTypeIdentifier] = [
        .activityMoveMode, .biologicalSex, .bloodType, .dateOfBirth, .fitzpatrickSkinType, .wheelchairUse,
    ]
}
