import ExactJSON
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

extension SHCLimits {
    /// Parses JSON as this library reads every card payload, header, key set, revocation list and
    /// card file: FHIRCore's strict RFC 8259 parser (valid UTF-8, no lone surrogates, no comments
    /// or trailing commas), duplicate member names rejected, nesting no deeper than
    /// ``maxJSONDepth``, and no byte-order mark. A thrown `JSONParseError` says where and why,
    /// never what: its `redacted` form, without a duplicate member's name.
    public func parseJSON(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try parseJSONTape(bytes).value(at: 0)
    }

    /// The same rules as ``parseJSON(_:)``, keeping the document as FHIRCore's tape (what the
    /// verifier walks without building a tree).
    func parseJSONTape(_ bytes: [UInt8]) throws(JSONParseError) -> JSONTape {
        do {
            return try JSONTape(bytes, maximumDepth: maxJSONDepth, allowsByteOrderMark: false)
        } catch {
            throw error.redacted
        }
    }
}
