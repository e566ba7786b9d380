import Foundation

/// Menstrual flow values. HealthKit deprecates this enum in iOS 18 in favor of `HKCategoryValueVaginalBleeding`,
/// which has the same raw values.
public enum HKCategoryValueMenstrualFlow: Int, Sendable, Codable, CaseIterable {
    /// Flow of unspecified amount.
    case unspecified = 1

    /// Light flow.
    case light = 2

    /// Medium flow.
    case medium = 3

    /// Heavy flow.
    case heavy = 4

    /// No flow.
    case none = 5
}
