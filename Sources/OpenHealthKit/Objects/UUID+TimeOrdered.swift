import Foundation

extension UUID {
    /// A new UUID whose first 48 bits are the current Unix time in milliseconds (RFC 9562's version 7), the other 74
    /// random: the UUIDs of the objects created one after the other sort in the order they were made, so a store's
    /// unique index on sample UUIDs grows at its end instead of changing pages anywhere in it (a large import then
    /// changes a few pages of that index per batch, not most of them). As unique as a random (version 4) UUID within
    /// each millisecond.
    static func timeOrdered() -> UUID {
        let milliseconds = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { bytes in
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
            // The 10 bytes after the timestamp from the pool (`SystemRandomNumberGenerator` made two system calls).
            RandomBytes.fill(UnsafeMutableRawBufferPointer(rebasing: bytes[6..<16]))
            bytes[6] = 0x70 | (bytes[6] & 0x0F)
            bytes[8] = 0x80 | (bytes[8] & 0x3F)
        }
        return UUID(uuid: uuid)
    }
}
