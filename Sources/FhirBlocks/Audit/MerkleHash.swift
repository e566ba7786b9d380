import CommonSupport
import Crypto

/// A SHA-256 value in the audit log's Merkle tree (RFC 6962 §2.1 / RFC 9162 §2.1).
public struct MerkleHash: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes.
    public let bytes: [UInt8]

    /// Wraps 32 bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// Reads 64 hex digits.
    public init?(hex: String) {
        guard let bytes = Hex.decode(hex), bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    init(digest: SHA256.Digest) {
        // Copied as one buffer (iterating the digest byte by byte cost more than a node's hash).
        bytes = digest.withUnsafeBytes { Array($0) }
    }

    /// `MTH({})`: SHA-256 of the empty string.
    public static let emptyTree = MerkleHash(digest: SHA256.hash(data: [UInt8]()))

    /// `SHA-256(0x00 ‖ entry)`.
    public static func leaf(_ entry: [UInt8]) -> MerkleHash {
        var hasher = SHA256()
        hasher.update(data: [0x00])
        hasher.update(data: entry)
        return MerkleHash(digest: hasher.finalize())
    }

    /// `SHA-256(0x01 ‖ left ‖ right)`.
    public static func node(_ left: MerkleHash, _ right: MerkleHash) -> MerkleHash {
        var hasher = SHA256()
        hasher.update(data: [0x01])
        hasher.update(data: left.bytes)
        hasher.update(data: right.bytes)
        return MerkleHash(digest: hasher.finalize())
    }

    /// Lowercase hex.
    public var hex: String { Hex.encode(bytes) }

    /// Standard base64 (the checkpoint's root line).
    public var base64: String { Base64URL.encodeStandard(bytes) }

    public var description: String { hex }
}
