/// Lays out one QR symbol: function patterns, codeword placement, masking and penalty scoring
/// (ISO/IEC 18004 §7.6–§7.10). Modules are bytes, 1 = dark, row-major.
struct QRSymbolBuilder {
    let version: Int
    let size: Int
    let level: QRErrorCorrection
    /// 1 = dark, row-major (`y * size + x`).
    var modules: [UInt8]
    /// true where a function pattern (or format/version information) sits.
    var isFunction: [Bool]
    /// The mask whose format information is drawn now.
    private(set) var drawnFormatMask = 0

    init(version: Int, level: QRErrorCorrection) {
        self.version = version
        self.level = level
        size = QRTables.size(version: version)
        modules = [UInt8](repeating: 0, count: size * size)
        isFunction = [Bool](repeating: false, count: size * size)
        drawFunctionPatterns()
    }

    // MARK: Function patterns

    private mutating func setFunction(_ x: Int, _ y: Int, dark: Bool) {
        modules[y * size + x] = dark ? 1 : 0
        isFunction[y * size + x] = true
    }

    private mutating func drawFunctionPatterns() {
        // Timing patterns: row 6 and column 6, dark on even coordinates.
        for i in 0..<size {
            setFunction(6, i, dark: i % 2 == 0)
            setFunction(i, 6, dark: i % 2 == 0)
        }
        // Finder patterns with their separators, centred 3 modules in from three corners.
        drawFinder(centerX: 3, centerY: 3)
        drawFinder(centerX: size - 4, centerY: 3)
        drawFinder(centerX: 3, centerY: size - 4)
        // Alignment patterns, except where they would overlap a finder pattern.
        let positions = QRTables.alignmentPositions(version: version)
        let last = positions.count - 1
        for (i, x) in positions.enumerated() {
            for (j, y) in positions.enumerated() {
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                drawAlignment(centerX: x, centerY: y)
            }
        }
        // Reserve the format areas (drawn for real once the mask is known) and the dark module.
        drawFormatBits(mask: 0)
        drawVersion()
    }

    private mutating func drawFinder(centerX: Int, centerY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centerX + dx
                let y = centerY + dy
                guard x >= 0, x < size, y >= 0, y < size else { continue }
                let distance = max(abs(dx), abs(dy))
                setFunction(x, y, dark: distance != 2 && distance != 4)
            }
        }
    }

    private mutating func drawAlignment(centerX: Int, centerY: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                setFunction(centerX + dx, centerY + dy, dark: max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// Where the 15 format-information bits go (ISO/IEC 18004 §7.9.1, Figure 25): each bit
    /// twice, once around the top-left finder pattern and once split between the other two.
    static func formatPositions(size: Int) -> [(x: Int, y: Int, bit: Int)] {
        var positions: [(x: Int, y: Int, bit: Int)] = []
        positions.reserveCapacity(30)
        // First copy, around the top-left finder pattern.
        for i in 0...5 { positions.append((8, i, i)) }
        positions.append((8, 7, 6))
        positions.append((8, 8, 7))
        positions.append((7, 8, 8))
        for i in 9..<15 { positions.append((14 - i, 8, i)) }
        // Second copy: bits 0–7 along row 8 below the top-right finder pattern, bits 8–14 up column 8
        // beside the bottom-left one.
        for i in 0..<8 { positions.append((size - 1 - i, 8, i)) }
        for i in 8..<15 { positions.append((8, size - 15 + i, i)) }
        return positions
    }

    /// Draws both copies of the format information for `mask` and the dark module.
    mutating func drawFormatBits(mask: Int) {
        let bits = QRTables.formatBits(level: level, mask: mask)
        for position in Self.formatPositions(size: size) {
            setFunction(position.x, position.y, dark: (bits >> position.bit) & 1 != 0)
        }
        setFunction(8, size - 8, dark: true)  // the dark module
        drawnFormatMask = mask
    }

    private mutating func drawVersion() {
        guard version >= 7 else { return }
        let bits = QRTables.versionBits(version: version)
        for i in 0..<18 {
            let dark = (bits >> i) & 1 != 0
            let a = size - 11 + i % 3
            let b = i / 3
            setFunction(a, b, dark: dark)  // top right
            setFunction(b, a, dark: dark)  // bottom left
        }
    }

    // MARK: Data

    /// Places `codewords` (data and error correction, interleaved) in the two-column zigzag from
    /// the bottom-right corner; the remainder bits stay light.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }  // skip the vertical timing pattern
            let upward = (right + 1) & 2 == 0
            for vertical in 0..<size {
                let y = upward ? size - 1 - vertical : vertical
                for column in 0..<2 {
                    let x = right - column
                    let index = y * size + x
                    guard !isFunction[index] else { continue }
                    if bitIndex < totalBits {
                        modules[index] = (codewords[bitIndex >> 3] >> UInt8(7 - (bitIndex & 7))) & 1
                        bitIndex += 1
                    }
                }
            }
            right -= 2
        }
    }

    // MARK: Masks

    /// Whether mask pattern `mask` inverts the module in column `x`, row `y`
    /// (ISO/IEC 18004 Table 10, with i = row and j = column).
    @inline(__always)
    static func maskInverts(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: return (x + y) % 2 == 0
        case 1: return y % 2 == 0
        case 2: return x % 3 == 0
        case 3: return (x + y) % 3 == 0
        case 4: return (x / 3 + y / 2) % 2 == 0
        case 5: return x * y % 2 + x * y % 3 == 0
        case 6: return (x * y % 2 + x * y % 3) % 2 == 0
        default: return ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    /// XORs mask `mask` onto every non-function module; applying it twice undoes it.
    mutating func applyMask(_ mask: Int) {
        modules.withUnsafeMutableBufferPointer { modules in
            isFunction.withUnsafeBufferPointer { isFunction in
                var index = 0
                for y in 0..<size {
                    for x in 0..<size {
                        if !isFunction[index], Self.maskInverts(mask, x: x, y: y) {
                            modules[index] ^= 1
                        }
                        index += 1
                    }
                }
            }
        }
    }

    /// Tries the eight masks and returns the one with the lowest penalty (the lowest-numbered
    /// on a tie).
    func bestMask() -> Int {
        let penalties = maskPenalties()
        var best = 0
        for mask in 1..<8 where penalties[mask] < penalties[best] {
            best = mask
        }
        return best
    }

    // MARK: Penalty (ISO/IEC 18004 §7.8.3, Table 11)

    /// N1: 3 for a run of five same-coloured modules in a row or column, 1 more per extra module.
    static let penaltyN1 = 3
    /// N2: 3 for each 2 × 2 block of one colour.
    static let penaltyN2 = 3
    /// N3: 40 for each 1:1:3:1:1 dark-light-dark-light-dark pattern with 4 light modules
    /// before or after it in a row or column.
    static let penaltyN3 = 40
    /// N4: 10 for each full 5 % the dark proportion deviates from 50 %.
    static let penaltyN4 = 10

    /// The penalty N1 + N2 + N3 + N4 of each mask 0...7, scored over the complete symbol with
    /// that mask's format information, as ISO/IEC 18004:2015 §7.8.3.1 asks ("the area to be
    /// evaluated is the complete symbol"). N3 counts every 1011101 whose four modules on at
    /// least one side are light; modules outside the symbol count as light (the quiet zone).
    ///
    /// Rows and columns are bit sets, so every rule is a few word operations per line: the
    /// unmasked symbol is read once, then each mask is an XOR of a periodic pattern (period 12
    /// divides every mask's period) restricted to the data modules.
    func maskPenalties() -> [Int] {
        // Read the symbol once into row and column bit sets, three words per line.
        var rowWords = [UInt64](repeating: 0, count: size * 3)
        var columnWords = [UInt64](repeating: 0, count: size * 3)
        var dataRowWords = [UInt64](repeating: 0, count: size * 3)
        var dataColumnWords = [UInt64](repeating: 0, count: size * 3)
        modules.withUnsafeBufferPointer { modules in
            isFunction.withUnsafeBufferPointer { isFunction in
                for y in 0..<size {
                    let yWord = y >> 6
                    let yBit = UInt64(y & 63)
                    for x in 0..<size {
                        let index = y * size + x
                        let dark = UInt64(modules[index] & 1)
                        let data: UInt64 = isFunction[index] ? 0 : 1
                        let xWord = x >> 6
                        let xBit = UInt64(x & 63)
                        rowWords[y * 3 + xWord] |= dark << xBit
                        columnWords[x * 3 + yWord] |= dark << yBit
                        dataRowWords[y * 3 + xWord] |= data << xBit
                        dataColumnWords[x * 3 + yWord] |= data << yBit
                    }
                }
            }
        }
        func lines(_ words: [UInt64]) -> [QRBitRow] {
            (0..<size).map { QRBitRow(w0: words[$0 * 3], w1: words[$0 * 3 + 1], w2: words[$0 * 3 + 2]) }
        }
        let rows = lines(rowWords)
        let columns = lines(columnWords)
        let dataRows = lines(dataRowWords)
        let dataColumns = lines(dataColumnWords)
        let formatPositions = Self.formatPositions(size: size)
        let drawnFormat = QRTables.formatBits(level: level, mask: drawnFormatMask)
        let pairs = QRBitRow.ones(size - 1)  // positions x with a neighbour x + 1

        var penalties = [Int](repeating: 0, count: 8)
        var maskedRows = rows
        var maskedColumns = columns
        var rowPatterns = [QRBitRow](repeating: .zero, count: 12)
        var columnPatterns = [QRBitRow](repeating: .zero, count: 12)
        for mask in 0..<8 {
            // The mask along a row depends on y mod 12, along a column on x mod 12.
            for residue in 0..<12 {
                var rowPattern: (UInt64, UInt64, UInt64) = (0, 0, 0)
                var columnPattern: (UInt64, UInt64, UInt64) = (0, 0, 0)
                for i in 0..<size {
                    let rowBit: UInt64 = Self.maskInverts(mask, x: i, y: residue) ? 1 << UInt64(i & 63) : 0
                    let columnBit: UInt64 = Self.maskInverts(mask, x: residue, y: i) ? 1 << UInt64(i & 63) : 0
                    switch i >> 6 {
                    case 0: rowPattern.0 |= rowBit; columnPattern.0 |= columnBit
                    case 1: rowPattern.1 |= rowBit; columnPattern.1 |= columnBit
                    default: rowPattern.2 |= rowBit; columnPattern.2 |= columnBit
                    }
                }
                rowPatterns[residue] = QRBitRow(w0: rowPattern.0, w1: rowPattern.1, w2: rowPattern.2)
                columnPatterns[residue] = QRBitRow(w0: columnPattern.0, w1: columnPattern.1, w2: columnPattern.2)
            }
            for i in 0..<size {
                maskedRows[i] = rows[i] ^ (rowPatterns[i % 12] & dataRows[i])
                maskedColumns[i] = columns[i] ^ (columnPatterns[i % 12] & dataColumns[i])
            }
            // This mask's format information in place of the one drawn.
            let difference = QRTables.formatBits(level: level, mask: mask) ^ drawnFormat
            for position in formatPositions where (difference >> position.bit) & 1 != 0 {
                maskedRows[position.y][position.x].toggle()
                maskedColumns[position.x][position.y].toggle()
            }

            var total = 0
            var dark = 0
            for i in 0..<size {
                total += Self.linePenalty(maskedRows[i], pairs: pairs)
                total += Self.linePenalty(maskedColumns[i], pairs: pairs)
                dark += maskedRows[i].count
            }
            // N2: x where rows y and y + 1 agree at x and x + 1 and row y agrees with itself.
            for y in 0..<(size - 1) {
                let a = maskedRows[y]
                let vertical = ~(a ^ maskedRows[y + 1])
                let horizontal = ~(a ^ (a >> 1))
                total += (vertical & (vertical >> 1) & horizontal & pairs).count * Self.penaltyN2
            }
            // N4: floor(|dark% − 50| / 5) steps of 10.
            let count = size * size
            total += abs(dark * 20 - count * 10) / count * Self.penaltyN4
            penalties[mask] = total
        }
        return penalties
    }

    /// N1 and N3 of one row or column.
    @inline(__always)
    private static func linePenalty(_ line: QRBitRow, pairs: QRBitRow) -> Int {
        // N1: `equal` has bit x when modules x and x + 1 match; `five` when x...x + 4 match. A run
        // of L ≥ 5 has L − 4 such windows and one start, and scores 3 + (L − 5) = (L − 4) + 2.
        let equal = ~(line ^ (line >> 1)) & pairs
        let five = equal & (equal >> 1) & (equal >> 2) & (equal >> 3)
        let starts = five & ~(equal << 1)
        var total = five.count + starts.count * (penaltyN1 - 1)
        // N3: 1011101 starting at x, with x − 4...x − 1 or x + 7...x + 10 light.
        let pattern = line & ~(line >> 1) & (line >> 2) & (line >> 3) & (line >> 4) & ~(line >> 5) & (line >> 6)
        if pattern != .zero {
            let lightAfter = ~((line >> 7) | (line >> 8) | (line >> 9) | (line >> 10))
            let lightBefore = ~((line << 1) | (line << 2) | (line << 3) | (line << 4))
            total += (pattern & (lightAfter | lightBefore)).count * penaltyN3
        }
        return total
    }
}
