import Foundation

/// The user's biological sex.
public enum HKBiologicalSex: Int, Sendable, Codable, CaseIterable {
    /// Not set, or read access was not granted.
    case notSet = 0

    /// Female.
    case female = 1

    /// Male.
    case male = 2

    /// Other.
    case other = 3
}
