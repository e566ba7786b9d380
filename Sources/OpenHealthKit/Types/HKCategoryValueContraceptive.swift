import Foundation

/// Kinds of contraceptive.
public enum HKCategoryValueContraceptive: Int, Sendable, Codable, CaseIterable {
    /// Unspecified.
    case unspecified = 1

    /// Implant.
    case implant = 2

    /// Injection.
    case injection = 3

    /// Intrauterine device.
    case intrauterineDevice = 4

    /// Intravaginal ring.
    case intravaginalRing = 5

    /// Oral.
    case oral = 6

    /// Patch.
    case patch = 7
}
