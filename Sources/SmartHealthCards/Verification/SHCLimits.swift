import Foundation

/// Resource limits and tolerances for verification and input parsing. Every limit bounds work
/// done on untrusted input.
public struct SHCLimits: Sendable, Hashable {
    /// The longest JWS accepted, in characters (the largest legitimate cards are a few kB).
    public var maxJWSLength: Int
    /// The most bytes a payload may inflate to; more is treated as a zip bomb (rule 14).
    public var maxInflatedBytes: Int
    /// The deepest JSON nesting accepted in headers, payloads and input files.
    public var maxJSONDepth: Int
    /// The largest input (file, `Parameters` response or QR text) ``SHCInput`` accepts, in bytes.
    public var maxInputBytes: Int
    /// How far in the future `nbf` may be before it is reported (rule 34), in seconds.
    public var clockSkew: TimeInterval

    /// Creates limits; the defaults suit every published card.
    public init(maxJWSLength: Int = 256 * 1024, maxInflatedBytes: Int = 1024 * 1024, maxJSONDepth: Int = 64,
                maxInputBytes: Int = 16 * 1024 * 1024, clockSkew: TimeInterval = 300) {
        self.maxJWSLength = maxJWSLength
        self.maxInflatedBytes = maxInflatedBytes
        self.maxJSONDepth = maxJSONDepth
        self.maxInputBytes = maxInputBytes
        self.clockSkew = clockSkew
    }

    /// The default limits: 256 KiB JWS, 1 MiB inflated payload, depth 64, 16 MiB input, 5 minutes skew.
    public static let `default` = SHCLimits()
}
