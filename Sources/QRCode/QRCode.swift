/// A QR code symbol (ISO/IEC 18004, QR Code model 2): a square of dark and light modules.
///
/// **Written by hand.** No package available to the project encodes QR codes, so this module
/// implements ISO/IEC 18004:2015 directly, in pure Swift with no dependencies and no I/O:
/// numeric, alphanumeric and byte segments → data codewords with terminator and pad bytes →
/// Reed–Solomon error correction over GF(256) per block → interleaving → zigzag placement
/// around the finder, timing and alignment patterns → the mask with the lowest ISO penalty
/// (N1–N4, over the complete symbol) → BCH-coded format and version information. The renderers
/// return values: an SVG string, PNG bytes (with its own CRC-32, Adler-32 and stored-deflate
/// zlib stream) and terminal text. The tests check it against published codewords, against
/// segno's symbols module for module, against the official SMART Health Cards QR codes, and
/// by decoding with zxing-cpp.
///
/// Build one with ``encode(segments:errorCorrection:minVersion:maxVersion:mask:)``, with
/// ``encode(text:errorCorrection:minVersion:maxVersion:mask:)``, or for a SMART Health Card with
/// ``smartHealthCard(numeric:maxVersion:)``; draw it with ``svg(moduleSize:border:)``,
/// ``png(moduleSize:border:)`` or ``terminalText(border:forLightBackground:)``, or read the
/// modules with ``subscript(_:_:)``.
///
/// ```swift
/// let code = try QRCode.smartHealthCard(numeric: digits)   // byte "shc:/" + numeric, ECL L, ≤ V22
/// let png = code.png(moduleSize: 8)                         // [UInt8], a valid PNG file
/// ```
public struct QRCode: Sendable, Hashable {
    /// The version, 1...40; the symbol has 17 + 4 × version modules per side.
    public let version: Int
    /// Modules per side (without quiet zone): 17 + 4 × ``version``.
    public let size: Int
    /// The error-correction level.
    public let errorCorrection: QRErrorCorrection
    /// The mask pattern applied to the data, 0...7.
    public let mask: Int
    /// 1 = dark, row-major (`y * size + x`).
    let modules: [UInt8]

    /// Whether the module in column `x`, row `y` is dark; (0, 0) is the top-left corner.
    /// Coordinates outside the symbol are light (they are the quiet zone).
    public subscript(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x] != 0
    }

    /// The number of data bits (mode indicators, character counts and data; no error correction)
    /// that a symbol of `version` at `errorCorrection` holds (ISO/IEC 18004 Table 7 × 8).
    ///
    /// - Precondition: `1 ≤ version ≤ 40`.
    public static func dataCapacityBits(version: Int, errorCorrection: QRErrorCorrection) -> Int {
        precondition((QRTables.minVersion...QRTables.maxVersion).contains(version), "QR version \(version) is not in 1...40")
        return QRTables.dataCodewords(version: version, level: errorCorrection) * 8
    }

    /// The data bits that `segments` take at `version` (mode indicators, character counts and
    /// data), or nil when a segment's character count overflows its count field at that version.
    ///
    /// - Precondition: `1 ≤ version ≤ 40`.
    public static func requiredBits(segments: [QRSegment], version: Int) -> Int? {
        precondition((QRTables.minVersion...QRTables.maxVersion).contains(version), "QR version \(version) is not in 1...40")
        var total = 0
        for segment in segments {
            guard let bits = segment.encodedBitCount(version: version) else { return nil }
            total += bits
        }
        return total
    }

    /// Encodes `segments` in the smallest version in `minVersion...maxVersion` that holds them at
    /// `errorCorrection`.
    ///
    /// - Parameters:
    ///   - segments: the data, in order; an empty array gives an empty symbol.
    ///   - errorCorrection: the level to use (kept as given, never raised).
    ///   - minVersion: the smallest version to consider (1...40).
    ///   - maxVersion: the largest version to consider (minVersion...40).
    ///   - mask: a mask pattern 0...7 to force, or nil to choose the one with the lowest ISO
    ///     penalty score (the lowest-numbered on a tie).
    /// - Throws: ``QRCodeError/dataTooLong(maxVersion:errorCorrection:capacityBits:requiredBits:)``
    ///   when the data does not fit `maxVersion`; ``QRCodeError/invalidVersionRange(minVersion:maxVersion:)``
    ///   or ``QRCodeError/invalidMask(_:)`` for bad arguments.
    public static func encode(
        segments: [QRSegment],
        errorCorrection: QRErrorCorrection = .medium,
        minVersion: Int = 1,
        maxVersion: Int = 40,
        mask: Int? = nil
    ) throws(QRCodeError) -> QRCode {
        guard QRTables.minVersion <= minVersion, minVersion <= maxVersion, maxVersion <= QRTables.maxVersion else {
            throw .invalidVersionRange(minVersion: minVersion, maxVersion: maxVersion)
        }
        if let mask, !(0...7).contains(mask) {
            throw .invalidMask(mask)
        }

        // The smallest version that holds the data.
        var chosen: (version: Int, bits: Int)? = nil
        for version in minVersion...maxVersion {
            if let bits = requiredBits(segments: segments, version: version),
               bits <= dataCapacityBits(version: version, errorCorrection: errorCorrection) {
                chosen = (version, bits)
                break
            }
        }
        guard let (version, usedBits) = chosen else {
            // A count that overflows its field at maxVersion also exceeds the capacity, so the
            // plain sum is the honest "required" figure.
            let required = segments.reduce(0) { $0 + 4 + $1.mode.characterCountBits(version: maxVersion) + $1.dataBitCount }
            throw .dataTooLong(
                maxVersion: maxVersion, errorCorrection: errorCorrection,
                capacityBits: dataCapacityBits(version: maxVersion, errorCorrection: errorCorrection),
                requiredBits: required)
        }

        // Data codewords: segments, terminator, bit padding, pad bytes (ISO/IEC 18004 §7.4.9–10).
        let capacity = dataCapacityBits(version: version, errorCorrection: errorCorrection)
        var buffer = QRBitBuffer(reservingBits: capacity)
        for segment in segments {
            buffer.append(segment.mode.indicator, bits: 4)
            buffer.append(UInt32(segment.characterCount), bits: segment.mode.characterCountBits(version: version))
            buffer.append(segment.data)
        }
        assert(buffer.count == usedBits)
        buffer.append(0, bits: min(4, capacity - buffer.count))
        buffer.append(0, bits: (8 - buffer.count % 8) % 8)
        var pad: UInt32 = 0xEC
        while buffer.count < capacity {
            buffer.append(pad, bits: 8)
            pad ^= 0xEC ^ 0x11
        }

        let codewords = interleavedCodewords(data: buffer.bytes, version: version, level: errorCorrection)
        var builder = QRSymbolBuilder(version: version, level: errorCorrection)
        builder.placeCodewords(codewords)
        let chosenMask = mask ?? builder.bestMask()
        builder.applyMask(chosenMask)
        builder.drawFormatBits(mask: chosenMask)
        return QRCode(version: version, size: builder.size, errorCorrection: errorCorrection,
                      mask: chosenMask, modules: builder.modules)
    }

    /// Encodes `text` as one segment in the densest single mode that holds it (numeric,
    /// alphanumeric, else UTF-8 bytes); see ``encode(segments:errorCorrection:minVersion:maxVersion:mask:)``.
    public static func encode(
        text: String,
        errorCorrection: QRErrorCorrection = .medium,
        minVersion: Int = 1,
        maxVersion: Int = 40,
        mask: Int? = nil
    ) throws(QRCodeError) -> QRCode {
        try encode(segments: [.automatic(text)], errorCorrection: errorCorrection,
                   minVersion: minVersion, maxVersion: maxVersion, mask: mask)
    }

    /// Splits the data codewords into blocks, appends each block's Reed–Solomon codewords, and
    /// interleaves them: data codeword i of every block in turn, then ECC codeword i of every
    /// block (ISO/IEC 18004 §7.5–§7.6).
    static func interleavedCodewords(data: [UInt8], version: Int, level: QRErrorCorrection) -> [UInt8] {
        let blocks = QRTables.errorCorrectionBlocks[level.rawValue][version]
        let eccLength = QRTables.eccCodewordsPerBlock[level.rawValue][version]
        let total = QRTables.totalCodewords(version: version)
        let shortBlocks = blocks - total % blocks
        let shortDataLength = total / blocks - eccLength
        let generator = QRReedSolomon.generator(degree: eccLength)

        var result = [UInt8](repeating: 0, count: total)
        var start = 0
        let dataTotal = data.count
        for block in 0..<blocks {
            let length = shortDataLength + (block < shortBlocks ? 0 : 1)
            let blockData = data[start..<(start + length)]
            // Data codeword j of this block goes to j × blocks + block, except that the extra
            // codeword of the long blocks comes after all the short blocks' last codewords.
            for j in 0..<length {
                let position = j < shortDataLength ? j * blocks + block : shortDataLength * blocks + (block - shortBlocks)
                result[position] = blockData[blockData.startIndex + j]
            }
            let ecc = QRReedSolomon.remainder(of: blockData, generator: generator)
            for j in 0..<eccLength {
                result[dataTotal + j * blocks + block] = ecc[j]
            }
            start += length
        }
        return result
    }
}
