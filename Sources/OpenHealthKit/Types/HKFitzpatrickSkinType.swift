import Foundation

/// The user's skin type on the Fitzpatrick scale.
public enum HKFitzpatrickSkinType: Int, Sendable, Codable, CaseIterable {
    /// Not set, or read access was not granted.
    case notSet = 0

    /// Type I: pale white skin that always burns and never tans.
    case I = 1

    /// Type II: white skin that burns easily and tans minimally.
    case II = 2

    /// Type III: white to light brown skin that burns moderately and tans uniformly.
    case III = 3

    /// Type IV: beige-olive skin that burns minimally and tans moderately.
    case IV = 4

    /// Type V: brown skin that rarely burns and tans profusely.
    case V = 5

    /// Type VI: dark brown to black skin that never burns.
    case VI = 6
}
