import Foundation

/// Little-endian bytes built in an array: the store's hand-written record formats (sealed
/// payloads, their authenticated context, value blocks). Appending to an array with reserved
/// capacity costs a fraction of appending to `Data`, which matters on the save path of every
/// sample.
struct ByteWriter {
    /// The bytes written so far.
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func uint16(_ value: UInt16) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func uint32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func uint64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func double(_ value: Double) {
        uint64(value.bitPattern)
    }

    /// The UUID's 16 bytes, as `UUID.databaseBlob` stores them.
    mutating func uuid(_ value: UUID) {
        withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ data: Data) {
        data.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    mutating func append(bytes other: [UInt8]) {
        bytes.append(contentsOf: other)
    }

    /// The string's UTF-8 bytes, at most `maxCount` of them.
    mutating func append(utf8 string: String, maxCount: Int = .max) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0.prefix(maxCount))) }
    }
}

/// Unsigned LEB128 ("varint"): seven bits a byte, least significant first, the high bit set on
/// every byte but the last. The stored formats that write small numbers compactly (binary
/// metadata, route blocks) share this writer.
enum LEB128 {
    /// Appends `value` to `bytes` (1 to 10 bytes).
    @inline(__always)
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Reads a number whose bytes `next` gives one by one; nil when it is overlong (an eleventh
    /// byte, or a tenth holding more than bit 63), so each format names its own corruption.
    @inline(__always)
    static func read<Failure: Error>(_ next: () throws(Failure) -> UInt8) throws(Failure) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try next()
            let bits = UInt64(byte & 0x7F)
            guard shift < 63 || bits <= 1 else { return nil }
            value |= bits << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }
}
