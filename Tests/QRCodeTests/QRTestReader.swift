@testable import QRCode

/// A small QR reader for tests: it reads a `QRCode` matrix back to its segments, checking on the
/// way the function patterns, both copies of the format and version information, the
/// Reed–Solomon syndromes of every block (evaluated directly, not by the encoder's division),
/// and the terminator and pad bytes. It runs without the peer decoder, so every test can check
/// round trips.
enum QRTestReader {
    struct Segment: Equatable, CustomStringConvertible {
        var mode: QRSegment.Mode
        /// The characters (digits or alphanumeric characters as ASCII) or the bytes.
        var bytes: [UInt8]
        var description: String { "\(mode)(\(String(decoding: bytes, as: UTF8.self)))" }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func read(_ code: QRCode) throws -> [Segment] {
        let size = code.size
        let version = code.version
        guard size == 17 + 4 * version else { throw Failure("size \(size) is not 17 + 4 × \(version)") }

        // Function patterns, format and version information as the builder draws them.
        var reference = QRSymbolBuilder(version: version, level: code.errorCorrection)
        reference.drawFormatBits(mask: code.mask)
        for y in 0..<size {
            for x in 0..<size where reference.isFunction[y * size + x] {
                guard code[x, y] == (reference.modules[y * size + x] != 0) else {
                    throw Failure("function module (\(x), \(y)) differs")
                }
            }
        }
        // Both format copies decode to the code's level and mask.
        var first = 0
        var second = 0
        for i in 0...5 where code[8, i] { first |= 1 << i }
        if code[8, 7] { first |= 1 << 6 }
        if code[8, 8] { first |= 1 << 7 }
        if code[7, 8] { first |= 1 << 8 }
        for i in 9..<15 where code[14 - i, 8] { first |= 1 << i }
        for i in 0..<8 where code[size - 1 - i, 8] { second |= 1 << i }
        for i in 8..<15 where code[8, size - 15 + i] { second |= 1 << i }
        guard first == second else { throw Failure("format copies differ") }
        let data = (first ^ 0x5412) >> 10
        guard data >> 3 == code.errorCorrection.formatBits, data & 7 == code.mask else {
            throw Failure("format information says level bits \(data >> 3), mask \(data & 7)")
        }

        // Unmask and read the codewords in zigzag order.
        let total = QRTables.totalCodewords(version: version)
        var codewords = [UInt8](repeating: 0, count: total)
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for vertical in 0..<size {
                let y = upward ? size - 1 - vertical : vertical
                for x in [right, right - 1] where !reference.isFunction[y * size + x] {
                    let dark = code[x, y] != QRSymbolBuilder.maskInverts(code.mask, x: x, y: y)
                    if bitIndex < total * 8 {
                        if dark { codewords[bitIndex / 8] |= 0x80 >> UInt8(bitIndex % 8) }
                    } else if dark {
                        throw Failure("remainder bit at (\(x), \(y)) is dark")
                    }
                    bitIndex += 1
                }
            }
            right -= 2
        }
        guard bitIndex >= total * 8 else { throw Failure("only \(bitIndex) data modules") }

        // De-interleave into blocks and check every block's syndromes.
        let blockCount = QRTables.errorCorrectionBlocks[code.errorCorrection.rawValue][version]
        let eccLength = QRTables.eccCodewordsPerBlock[code.errorCorrection.rawValue][version]
        let shortBlocks = blockCount - total % blockCount
        let shortDataLength = total / blockCount - eccLength
        let dataLength = QRTables.dataCodewords(version: version, level: code.errorCorrection)
        var blocks = [[UInt8]](repeating: [], count: blockCount)
        var position = 0
        for j in 0...shortDataLength {
            for block in 0..<blockCount where j < shortDataLength || block >= shortBlocks {
                blocks[block].append(codewords[position])
                position += 1
            }
        }
        guard position == dataLength else { throw Failure("data length \(position) ≠ \(dataLength)") }
        for _ in 0..<eccLength {
            for block in 0..<blockCount {
                blocks[block].append(codewords[position])
                position += 1
            }
        }
        for (index, block) in blocks.enumerated() {
            var root: UInt8 = 1
            for i in 0..<eccLength {
                var value: UInt8 = 0
                for coefficient in block { value = gfMultiply(value, root) ^ coefficient }  // Horner
                guard value == 0 else { throw Failure("block \(index) syndrome \(i) is \(value)") }
                root = gfMultiply(root, 2)
            }
        }
        var dataCodewords: [UInt8] = []
        for block in blocks { dataCodewords += block.prefix(block.count - eccLength) }

        // Parse the segments.
        var reader = BitReader(bytes: dataCodewords)
        var segments: [Segment] = []
        while reader.remaining >= 4 {
            let indicator = reader.read(4)
            if indicator == 0 { break }
            let mode: QRSegment.Mode
            switch indicator {
            case 1: mode = .numeric
            case 2: mode = .alphanumeric
            case 4: mode = .byte
            default: throw Failure("unexpected mode indicator \(indicator)")
            }
            let count = reader.read(mode.characterCountBits(version: version))
            var bytes: [UInt8] = []
            switch mode {
            case .numeric:
                var left = count
                while left > 0 {
                    let digits = min(3, left)
                    let value = reader.read(digits * 3 + 1)
                    let text = String(value)
                    guard text.count <= digits else { throw Failure("numeric group \(value) too large") }
                    bytes += Array((String(repeating: "0", count: digits - text.count) + text).utf8)
                    left -= digits
                }
            case .alphanumeric:
                let charset = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)
                var left = count
                while left > 0 {
                    if left >= 2 {
                        let value = reader.read(11)
                        guard value / 45 < 45 else { throw Failure("alphanumeric pair \(value) too large") }
                        bytes += [charset[value / 45], charset[value % 45]]
                        left -= 2
                    } else {
                        let value = reader.read(6)
                        guard value < 45 else { throw Failure("alphanumeric value \(value) too large") }
                        bytes.append(charset[value])
                        left -= 1
                    }
                }
            case .byte:
                for _ in 0..<count { bytes.append(UInt8(reader.read(8))) }
            }
            guard !reader.overrun else { throw Failure("segment runs past the data") }
            segments.append(Segment(mode: mode, bytes: bytes))
        }
        // After the terminator: zero bits to the byte boundary, then 0xEC, 0x11 alternately.
        while reader.remaining > 0, reader.position % 8 != 0 {
            guard reader.read(1) == 0 else { throw Failure("padding bit is 1") }
        }
        var pad = 0xEC
        while reader.remaining >= 8 {
            guard reader.read(8) == pad else { throw Failure("pad byte is not \(pad)") }
            pad ^= 0xEC ^ 0x11
        }
        return segments
    }

    /// GF(2⁸) product, bit by bit (0x11D), independent of the module's log tables.
    static func gfMultiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var result: UInt16 = 0
        var x = UInt16(a)
        var y = b
        while y != 0 {
            if y & 1 != 0 { result ^= x }
            x <<= 1
            if x & 0x100 != 0 { x ^= 0x11D }
            y >>= 1
        }
        return UInt8(result)
    }

    struct BitReader {
        let bytes: [UInt8]
        var position = 0
        var overrun = false
        var remaining: Int { bytes.count * 8 - position }
        mutating func read(_ count: Int) -> Int {
            var value = 0
            for _ in 0..<count {
                guard position < bytes.count * 8 else {
                    overrun = true
                    return value
                }
                value = value << 1 | Int((bytes[position / 8] >> UInt8(7 - position % 8)) & 1)
                position += 1
            }
            return value
        }
    }
}

extension QRTestReader.Segment {
    static func numeric(_ text: String) -> Self { .init(mode: .numeric, bytes: Array(text.utf8)) }
    static func alphanumeric(_ text: String) -> Self { .init(mode: .alphanumeric, bytes: Array(text.utf8)) }
    static func byte(_ bytes: [UInt8]) -> Self { .init(mode: .byte, bytes: bytes) }
}
