import Foundation

/// Cervical mucus quality values, ordered from least fertile (dry) to most fertile (egg white).
public enum HKCategoryValueCervicalMucusQuality: Int, Sendable, Codable, CaseIterable {
    /// Dry.
    case dry = 1

    /// Sticky.
    case sticky = 2

    /// Creamy.
    case creamy = 3

    /// Watery.
    case watery = 4

    /// Egg white.
    case eggWhite = 5
}
