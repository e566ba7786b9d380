/// A growable sequence of bits, most significant bit first within each byte, as QR data is
/// laid out (ISO/IEC 18004 §7.4).
struct QRBitBuffer: Sendable, Hashable {
    /// The bits, packed; the unused low bits of the last byte are zero.
    private(set) var bytes: [UInt8] = []
    /// How many bits are in the buffer.
    private(set) var count = 0

    init() {}

    init(reservingBits bits: Int) {
        bytes.reserveCapacity((bits + 7) / 8)
    }

    /// Appends the `length` low bits of `value`, most significant first (`0 ≤ length ≤ 32`).
    mutating func append(_ value: UInt32, bits length: Int) {
        var remaining = length
        while remaining > 0 {
            let used = count & 7
            if used == 0 { bytes.append(0) }
            let free = 8 - used
            let take = min(free, remaining)
            let chunk = UInt8(truncatingIfNeeded: (value >> UInt32(remaining - take)) & ((1 << UInt32(take)) - 1))
            bytes[bytes.count - 1] |= chunk << UInt8(free - take)
            remaining -= take
            count += take
        }
    }

    /// Appends every bit of `other`.
    mutating func append(_ other: QRBitBuffer) {
        if count & 7 == 0 {
            bytes.append(contentsOf: other.bytes)
            count += other.count
            return
        }
        var left = other.count
        for byte in other.bytes {
            let take = min(8, left)
            append(UInt32(byte >> UInt8(8 - take)), bits: take)
            left -= take
        }
    }
}
