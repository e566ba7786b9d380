/// A member name's first and last eight bytes, which the tape keeps in every unescaped key node
/// (``JSONTape/Node/keyFingerprint``) so that looking a member up compares two words already in
/// the node instead of reading the name's bytes from the document again: for names of at most 16
/// bytes (nearly every FHIR element name) the fingerprint and the length are the whole name.
///
/// A name shorter than eight bytes is its bytes zero-padded, in `first`, and `last` is 0; a longer
/// one has its first eight bytes in `first` and its last eight in `last` (overlapping when it is
/// shorter than 16). Both words are read little-endian, so a fingerprint is the same on every
/// platform.
public struct JSONKeyFingerprint: Equatable, Sendable {
    /// The name's first eight bytes, little-endian (a shorter name's bytes, zero-padded).
    public var first: UInt64
    /// The name's last eight bytes, little-endian (0 for a name shorter than eight bytes).
    public var last: UInt64

    /// A fingerprint from its two words.
    @inlinable public init(first: UInt64, last: UInt64) {
        self.first = first
        self.last = last
    }

    /// The fingerprint of the `count` bytes at `bytes` (only those bytes are read).
    @inlinable @inline(__always)
    public init(_ bytes: UnsafePointer<UInt8>, count: Int) {
        let raw = UnsafeRawPointer(bytes)
        if count >= 8 {
            first = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            last = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))
        } else if count >= 4 {
            // Two overlapping four-byte reads: the shared bytes land in the same places.
            let low = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            let high = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)))
            first = low | high << UInt64(truncatingIfNeeded: (count &- 4) &* 8)
            last = 0
        } else if count > 0 {
            let middle = count &>> 1
            first = UInt64(bytes[0])
                | UInt64(bytes[middle]) << UInt64(truncatingIfNeeded: middle &* 8)
                | UInt64(bytes[count &- 1]) << UInt64(truncatingIfNeeded: (count &- 1) &* 8)
            last = 0
        } else {
            first = 0
            last = 0
        }
    }

    /// The fingerprint of a buffer's bytes.
    @inlinable @inline(__always)
    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let base = bytes.baseAddress {
            self.init(base, count: bytes.count)
        } else {
            self.init(first: 0, last: 0)
        }
    }

    /// Whether a name with this fingerprint and `count` bytes can only be the one that has the
    /// same fingerprint and length, without comparing the bytes between its first and last eight.
    @inlinable public static func coversWholeName(count: Int) -> Bool { count <= 16 }
}
