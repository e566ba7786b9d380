/// Writes a 1-bit grayscale PNG (ISO/IEC 15948) by hand: signature, IHDR, one IDAT holding a
/// zlib stream (RFC 1950) of stored, uncompressed deflate blocks (RFC 1951 §3.2.4) with its
/// Adler-32, and IEND; every chunk with its CRC-32. No compression library is needed, and the
/// output is a valid PNG that any decoder reads.
enum QRPNGWriter {
    /// The PNG for an image of `width` × `height` pixels whose rows, each already packed
    /// 8 pixels to a byte (most significant first, 1 = white) and preceded by filter type 0,
    /// are `scanlines` (`height` × (1 + ⌈width / 8⌉) bytes).
    static func png(width: Int, height: Int, scanlines: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out.reserveCapacity(scanlines.count + scanlines.count / 65535 * 5 + 128)

        var header: [UInt8] = []
        appendBigEndian(UInt32(width), to: &header)
        appendBigEndian(UInt32(height), to: &header)
        header += [1, 0, 0, 0, 0]  // bit depth 1, grayscale, deflate, adaptive filtering, no interlace
        appendChunk("IHDR", header, to: &out)
        appendChunk("IDAT", zlibStored(scanlines), to: &out)
        appendChunk("IEND", [], to: &out)
        return out
    }

    /// A zlib stream of `data` in stored deflate blocks of at most 65535 bytes.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window, no dictionary, fastest; (0x7801 % 31 == 0)
        out.reserveCapacity(data.count + (data.count / 65535 + 1) * 5 + 6)
        var start = 0
        repeat {
            let length = min(65535, data.count - start)
            let final = start + length == data.count
            out.append(final ? 1 : 0)  // BFINAL, BTYPE = 00 (stored), then padding to the byte
            out.append(UInt8(length & 0xFF))
            out.append(UInt8(length >> 8))
            out.append(UInt8(~length & 0xFF))
            out.append(UInt8((~length >> 8) & 0xFF))
            out.append(contentsOf: data[start..<(start + length)])
            start += length
        } while start < data.count
        appendBigEndian(adler32(data), to: &out)
        return out
    }

    /// Adler-32 (RFC 1950 §8.2).
    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        var index = 0
        while index < data.count {
            // 5552 bytes keep b below 2³² before the modulo.
            let end = min(index + 5552, data.count)
            while index < end {
                a &+= UInt32(data[index])
                b &+= a
                index += 1
            }
            a %= 65521
            b %= 65521
        }
        return b << 16 | a
    }

    /// The CRC-32 table for polynomial 0xEDB88320 (reflected 0x04C11DB7), as PNG and zlib use.
    static let crcTable: [UInt32] = (0..<256).map { (n: Int) -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 {
            c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1
        }
        return c
    }

    /// CRC-32 (ISO 3309 / ITU-T V.42) of `bytes`, continuing from `crc` (start with 0).
    static func crc32<C: Collection<UInt8>>(_ bytes: C, continuing crc: UInt32 = 0) -> UInt32 {
        var c = ~crc
        let table = crcTable  // a local copy: no lazy-initialisation check per byte
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8)
            }
        }
        return ~c
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        appendBigEndian(UInt32(data.count), to: &out)
        out += typeBytes
        out += data
        appendBigEndian(crc32(data, continuing: crc32(typeBytes)), to: &out)
    }

    private static func appendBigEndian(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(value >> 24))
        out.append(UInt8((value >> 16) & 0xFF))
        out.append(UInt8((value >> 8) & 0xFF))
        out.append(UInt8(value & 0xFF))
    }
}
