import Foundation

extension UUID {
    /// A new UUID whose first 48 bits are the current Unix time in milliseconds (RFC 9562's version 7), the other 74
    /// random: the UUIDs of the objects created one after the other sort in the order they were made, so a store's
    /// unique index on sample UUIDs grows at its end instead of changing pages anywhere in it (a large import then
    /// changes a few pages of that index per batch, not most of them). As unique as a random (version 4) UUID within
    /// each millisecond.
    static func timeOrdered() -> UUID {
        var generator = SystemRandomNumberGenerator()
        let milliseconds = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
        for index in 6..<8 { bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(index - 6))) }
        for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(index - 8))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
