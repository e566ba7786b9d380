import CSystemZlib
import Foundation

/// The CRC-32 (ISO 3309, the zip format's checksum) of an entry's inflated bytes, updated chunk by chunk with zlib's
/// `crc32` (table-driven, folded with PCLMUL where the CPU has it). ZIPFoundation computes the same checksum in Swift
/// when it extracts an entry unless told to skip it, which cost about 2 s of CPU on a 743 MB export.xml; the readers
/// extract with `skipCRC32: true` and check this one against the entry's recorded checksum instead, exactly as strictly.
struct ZipCRC32 {
    /// The checksum of the bytes given so far (0 before any).
    private(set) var value: UInt32 = 0

    /// Adds `data`'s bytes to the checksum.
    mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Adds the bytes of `buffer` to the checksum.
    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard var base = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return }
        var remaining = buffer.count
        var crc = uLong(value)
        while remaining > 0 {
            // zlib takes a 32-bit length.
            let length = min(remaining, 1 << 30)
            crc = crc32(crc, base, uInt(length))
            base += length
            remaining -= length
        }
        value = UInt32(truncatingIfNeeded: crc)
    }
}
