/// The fixed numbers of QR Code model 2 (ISO/IEC 18004 Tables 1, 9, 12, Annexes C, D and E).
enum QRTables {
    static let minVersion = 1
    static let maxVersion = 40

    /// Error-correction codewords per block, by level (L, M, Q, H) then version (index 0 unused).
    /// ISO/IEC 18004 Table 9.
    static let eccCodewordsPerBlock: [[Int]] = [
        [-1, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
         28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [-1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
         26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [-1, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
         28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [-1, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
         30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    /// Error-correction blocks, by level (L, M, Q, H) then version (index 0 unused).
    /// ISO/IEC 18004 Table 9.
    static let errorCorrectionBlocks: [[Int]] = [
        [-1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
         8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [-1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
         17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [-1, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
         23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [-1, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
         25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    /// Modules per side at `version`: 17 + 4 × version.
    static func size(version: Int) -> Int { 17 + 4 * version }

    /// The modules left for data and error correction at `version` (including remainder bits):
    /// the whole symbol less finder patterns with separators, timing patterns, alignment
    /// patterns, format and version information and the dark module.
    static func rawDataModules(version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignments = version / 7 + 2
            result -= (25 * alignments - 10) * alignments - 55
            if version >= 7 {
                result -= 36  // two 6×3 version-information blocks
            }
        }
        return result
    }

    /// All codewords of the symbol at `version` (ISO/IEC 18004 Table 1).
    static func totalCodewords(version: Int) -> Int { rawDataModules(version: version) / 8 }

    /// Data codewords at `version` and `level` (ISO/IEC 18004 Table 7).
    static func dataCodewords(version: Int, level: QRErrorCorrection) -> Int {
        totalCodewords(version: version)
            - eccCodewordsPerBlock[level.rawValue][version] * errorCorrectionBlocks[level.rawValue][version]
    }

    /// The centre coordinates of the alignment patterns at `version`, ascending (ISO/IEC 18004
    /// Annex E); empty for version 1. Patterns sit at every pair of these except the three
    /// overlapping finder patterns.
    static func alignmentPositions(version: Int) -> [Int] {
        guard version >= 2 else { return [] }
        let count = version / 7 + 2
        let last = size(version: version) - 7
        // Evenly spaced from the last one back towards 6, with an even step, rounded up;
        // version 32 is the one exception in the ISO table.
        let step = version == 32 ? 26 : ((last - 6) + (count - 1) * 2 - 1) / ((count - 1) * 2) * 2
        var positions = [Int](repeating: 6, count: count)
        for i in 1..<count {
            positions[count - i] = last - (i - 1) * step
        }
        return positions
    }

    /// The 15 format-information bits for `level` and `mask`: 5 data bits, 10 BCH(15,5) bits
    /// (generator 0x537), XOR 0x5412 (ISO/IEC 18004 §7.9.1, Annex C). Bit 14 is the most
    /// significant.
    static func formatBits(level: QRErrorCorrection, mask: Int) -> Int {
        let data = level.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 {
            remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537)
        }
        return (data << 10 | remainder) ^ 0x5412
    }

    /// The 18 version-information bits for `version` ≥ 7: 6 data bits and 12 BCH(18,6) bits
    /// (generator 0x1F25) (ISO/IEC 18004 §7.10, Annex D). Bit 17 is the most significant.
    static func versionBits(version: Int) -> Int {
        var remainder = version
        for _ in 0..<12 {
            remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25)
        }
        return version << 12 | remainder
    }
}
