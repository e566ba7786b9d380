import Foundation

/// Vaginal bleeding values, used by menstrual flow and the pregnancy bleeding types.
public enum HKCategoryValueVaginalBleeding: Int, Sendable, Codable, CaseIterable {
    /// Bleeding of unspecified amount.
    case unspecified = 1

    /// Light bleeding.
    case light = 2

    /// Medium bleeding.
    case medium = 3

    /// Heavy bleeding.
    case heavy = 4

    /// No bleeding.
    case none = 5
}
