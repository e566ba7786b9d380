import Testing
@testable import QRCode

@Suite("QR encoding: known answers")
struct QREncodingTests {
    // MARK: Format and version information

    /// ISO/IEC 18004 Annex C, Table C.1: the 15-bit masked format information of every level
    /// and mask (the same strings are in every QR reference, e.g. segno's FORMAT_INFO).
    static let formatStrings: [QRErrorCorrection: [String]] = [
        .low: ["111011111000100", "111001011110011", "111110110101010", "111100010011101",
               "110011000101111", "110001100011000", "110110001000001", "110100101110110"],
        .medium: ["101010000010010", "101000100100101", "101111001111100", "101101101001011",
                  "100010111111001", "100000011001110", "100111110010111", "100101010100000"],
        .quartile: ["011010101011111", "011000001101000", "011111100110001", "011101000000110",
                    "010010010110100", "010000110000011", "010111011011010", "010101111101101"],
        .high: ["001011010001001", "001001110111110", "001110011100111", "001100111010000",
                "000011101100010", "000001001010101", "000110100001100", "000100000111011"],
    ]

    @Test("format information BCH strings for all 32 (level, mask) pairs")
    func formatInformation() throws {
        for level in QRErrorCorrection.allCases {
            let strings = try #require(Self.formatStrings[level])
            for mask in 0..<8 {
                let bits = QRTables.formatBits(level: level, mask: mask)
                let text = String(bits, radix: 2)
                #expect(String(repeating: "0", count: 15 - text.count) + text == strings[mask], "\(level) mask \(mask)")
            }
        }
    }

    @Test("the format information drawn in a symbol reads back in both copies")
    func formatInformationPlacement() throws {
        for level in QRErrorCorrection.allCases {
            for mask in 0..<8 {
                let code = try QRCode.encode(segments: [.byte("format")], errorCorrection: level, mask: mask)
                let matrix = (0..<code.size).map { y in (0..<code.size).map { x in code[x, y] } }
                let read = QRTestSupport.formatMask(matrix)
                #expect(read.level == level.formatBits && read.mask == mask)
                _ = try QRTestReader.read(code)  // checks the second copy too
            }
        }
    }

    @Test("version information (ISO/IEC 18004 Annex D, Table D.1)", arguments: [
        (7, "000111110010010100"), (8, "001000010110111100"), (9, "001001101010011001"),
        (10, "001010010011010011"), (15, "001111100100101000"), (22, "010110100011001001"),
        (32, "100000100111010101"), (40, "101000110001101001"),
    ])
    func versionInformation(version: Int, expected: String) {
        let text = String(QRTables.versionBits(version: version), radix: 2)
        #expect(String(repeating: "0", count: 18 - text.count) + text == expected)
    }

    @Test("version information for every version 7–40 has 18 bits with a zero BCH remainder")
    func versionInformationAll() {
        for version in 7...40 {
            let bits = QRTables.versionBits(version: version)
            #expect(bits >> 12 == version)
            // The whole 18-bit word is a multiple of the generator 0x1F25 over GF(2).
            var remainder = bits
            for shift in stride(from: 5, through: 0, by: -1) where remainder & (1 << (shift + 12)) != 0 {
                remainder ^= 0x1F25 << shift
            }
            #expect(remainder == 0, "version \(version)")
        }
    }

    // MARK: Reed–Solomon

    @Test("ISO/IEC 18004 Annex I: \"01234567\" at 1-M gives the published data and ECC codewords")
    func isoAnnexCodewords() throws {
        let segment = try QRSegment.numeric("01234567")
        var buffer = QRBitBuffer()
        buffer.append(segment.mode.indicator, bits: 4)
        buffer.append(UInt32(segment.characterCount), bits: 10)
        buffer.append(segment.data)
        // 0001 0000001000 0000001100 0101011001 1000011 + terminator, padding, pad bytes.
        #expect(buffer.count == 41)
        let code = try QRCode.encode(segments: [segment], errorCorrection: .medium, maxVersion: 1)
        #expect(code.version == 1)
        let codewords = QRCode.interleavedCodewords(
            data: [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11],
            version: 1, level: .medium)
        #expect(Array(codewords.suffix(10)) == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
        // The encoder produces those data codewords itself: the reader gets them back.
        #expect(try QRTestReader.read(code) == [.numeric("01234567")])
    }

    @Test("Reed–Solomon ECC of \"HELLO WORLD\" at 1-M and 1-Q (the thonky.com QR tutorial's worked example)")
    func helloWorldECC() {
        let dataM: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        #expect(QRReedSolomon.remainder(of: dataM[...], generator: QRReedSolomon.generator(degree: 10))
            == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
        let dataQ: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236]
        #expect(QRReedSolomon.remainder(of: dataQ[...], generator: QRReedSolomon.generator(degree: 13))
            == [168, 72, 22, 82, 217, 54, 156, 0, 46, 15, 180, 122, 16])
    }

    @Test("the alphanumeric segment of \"HELLO WORLD\" packs to the worked example's bits")
    func helloWorldSegment() throws {
        let segment = try QRSegment.alphanumeric("HELLO WORLD")
        // 01100001011 01111000110 10001011100 10110111000 10011010100 001101
        #expect(segment.dataBitCount == 61)
        #expect(segment.data.bytes == [0b0110_0001, 0b0110_1111, 0b0001_1010, 0b0010_1110, 0b0101_1011,
                                       0b1000_1001, 0b1010_1000, 0b0110_1000])
    }

    @Test("GF(256) multiplication agrees with carry-less multiplication modulo 0x11D for all pairs")
    func galoisField() {
        for a in 0...255 {
            for b in 0...255 {
                let fast = QRReedSolomon.multiply(UInt8(a), UInt8(b))
                let slow = QRTestReader.gfMultiply(UInt8(a), UInt8(b))
                if fast != slow {
                    Issue.record("\(a) × \(b): \(fast) ≠ \(slow)")
                    return
                }
            }
        }
    }

    // MARK: Capacities and tables

    @Test("capacity spot checks (ISO/IEC 18004 Table 7)")
    func capacities() throws {
        func maxCharacters(_ mode: QRSegment.Mode, _ version: Int, _ level: QRErrorCorrection) -> Int {
            let available = QRCode.dataCapacityBits(version: version, errorCorrection: level) - 4
                - mode.characterCountBits(version: version)
            switch mode {
            case .numeric: return QRCode.maxDigits(inBits: available)
            case .alphanumeric: return available / 11 * 2 + (available % 11 >= 6 ? 1 : 0)
            case .byte: return available / 8
            }
        }
        #expect(maxCharacters(.numeric, 1, .low) == 41)
        #expect(maxCharacters(.alphanumeric, 1, .low) == 25)
        #expect(maxCharacters(.byte, 1, .low) == 17)
        #expect(maxCharacters(.numeric, 1, .high) == 17)
        #expect(maxCharacters(.byte, 40, .low) == 2953)
        #expect(maxCharacters(.numeric, 40, .low) == 7089)
        #expect(maxCharacters(.alphanumeric, 40, .low) == 4296)
        #expect(maxCharacters(.byte, 40, .high) == 1273)
        #expect(maxCharacters(.numeric, 22, .low) == 2409)
        // SMART Health Cards rule 48: the data bits of version 22.
        #expect(QRCode.dataCapacityBits(version: 22, errorCorrection: .low) == 8048)
        #expect(QRCode.dataCapacityBits(version: 22, errorCorrection: .medium) == 6256)
        #expect(QRCode.dataCapacityBits(version: 22, errorCorrection: .quartile) == 4544)
        #expect(QRCode.dataCapacityBits(version: 22, errorCorrection: .high) == 3536)
        // Table 1: total codewords.
        #expect(QRTables.totalCodewords(version: 1) == 26)
        #expect(QRTables.totalCodewords(version: 7) == 196)
        #expect(QRTables.totalCodewords(version: 22) == 1258)
        #expect(QRTables.totalCodewords(version: 40) == 3706)

        // The limit is exact: the largest content fits, one more character does not.
        for (mode, text) in [(QRSegment.Mode.numeric, String(repeating: "7", count: 41)),
                             (.alphanumeric, String(repeating: "Q", count: 25)),
                             (.byte, String(repeating: "b", count: 17))] {
            let fits: QRSegment = mode == .numeric ? try .numeric(text) : mode == .alphanumeric ? try .alphanumeric(text) : .byte(text)
            #expect(try QRCode.encode(segments: [fits], errorCorrection: .low, maxVersion: 1).version == 1)
            let longer: QRSegment = mode == .numeric ? try .numeric(text + "7") : mode == .alphanumeric ? try .alphanumeric(text + "Q") : .byte(text + "b")
            #expect(throws: QRCodeError.self) { try QRCode.encode(segments: [longer], errorCorrection: .low, maxVersion: 1) }
        }
    }

    @Test("alignment pattern positions for every version (ISO/IEC 18004 Annex E, Table E.1)")
    func alignmentPositions() {
        let table: [[Int]] = [
            [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
            [6, 30, 54], [6, 32, 58], [6, 34, 62], [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78],
            [6, 30, 56, 82], [6, 30, 58, 86], [6, 34, 62, 90], [6, 28, 50, 72, 94], [6, 26, 50, 74, 98],
            [6, 30, 54, 78, 102], [6, 28, 54, 80, 106], [6, 32, 58, 84, 110], [6, 30, 58, 86, 114],
            [6, 34, 62, 90, 118], [6, 26, 50, 74, 98, 122], [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130],
            [6, 30, 56, 82, 108, 134], [6, 34, 60, 86, 112, 138], [6, 30, 58, 86, 114, 142], [6, 34, 62, 90, 118, 146],
            [6, 30, 54, 78, 102, 126, 150], [6, 24, 50, 76, 102, 128, 154], [6, 28, 54, 80, 106, 132, 158],
            [6, 32, 58, 84, 110, 136, 162], [6, 26, 54, 82, 110, 138, 166], [6, 30, 58, 86, 114, 142, 170],
        ]
        for version in 1...40 {
            #expect(QRTables.alignmentPositions(version: version) == table[version - 1], "version \(version)")
        }
    }

    @Test("raw data modules equal the symbol less its function modules, for every version")
    func rawModules() {
        for version in 1...40 {
            let builder = QRSymbolBuilder(version: version, level: .low)
            let free = builder.isFunction.filter { !$0 }.count
            #expect(free == QRTables.rawDataModules(version: version), "version \(version)")
        }
    }

    // MARK: Whole symbols against an independent encoder

    static func segnoContent(_ vector: SegnoFixture.Vector) throws -> QRSegment {
        let v = vector.version
        let n = vector.length
        switch vector.mode {
        case "numeric":
            return try .numeric(String((0..<n).map { i in Character(String((7 * i + v) % 10)) }))
        case "alphanumeric":
            let charset = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:")
            return try .alphanumeric(String((0..<n).map { i in charset[(13 * i + v) % 45] }))
        default:
            return .bytes((0..<n).map { i in UInt8((31 * i + 7 * v) % 256) })
        }
    }

    static func level(_ letter: Character) -> QRErrorCorrection {
        QRErrorCorrection.allCases.first { $0.letter == letter } ?? .low
    }

    @Test("every version and level, filled to capacity with a forced mask, equals segno's symbol module for module")
    func segnoSymbols() throws {
        #expect(SegnoFixture.vectors.count == 160)
        for vector in SegnoFixture.vectors {
            let segment = try Self.segnoContent(vector)
            let level = Self.level(vector.level)
            let code = try QRCode.encode(segments: [segment], errorCorrection: level, minVersion: 1,
                                         maxVersion: vector.version, mask: vector.mask)
            let name = "\(vector.version)-\(vector.level) \(vector.mode)×\(vector.length)"
            #expect(code.version == vector.version, "\(name): full content must need this version")
            #expect(code.mask == vector.mask)
            #expect(QRTestSupport.matrixCRC(code) == vector.crc, "\(name)")
            // One character more does not fit this version (segno agreed on the limit).
            let bits = QRCode.requiredBits(segments: [segment], version: vector.version) ?? 0
            let nextCharacterBits = vector.mode == "byte" ? 8 : vector.mode == "numeric" ? (vector.length % 3 == 0 ? 4 : 3) : (vector.length % 2 == 0 ? 6 : 5)
            #expect(bits <= QRCode.dataCapacityBits(version: vector.version, errorCorrection: level))
            #expect(bits + nextCharacterBits > QRCode.dataCapacityBits(version: vector.version, errorCorrection: level), "\(name)")
        }
    }

    /// ISO/IEC 18004 Table 11, scored independently of the encoder: N1 runs ≥ 5, N2 2×2 blocks,
    /// N3 "1011101" with four light modules before or after (outside the symbol is light), N4
    /// 10 per whole 5 % of dark-proportion deviation from 50 %.
    static func isoPenalty(_ rows: [[Bool]], segnoStyle: Bool = false) -> Int {
        let n = rows.count
        let columns = (0..<n).map { x in (0..<n).map { y in rows[y][x] } }
        var score = 0
        for line in rows + columns {
            var run = 1
            for i in 1...n {
                if i < n, line[i] == line[i - 1] {
                    run += 1
                } else {
                    if run >= 5 { score += 3 + run - 5 }
                    run = 1
                }
            }
            let pattern = [true, false, true, true, true, false, true]
            var start = 0
            while start <= n - 7 {
                defer { start += 1 }
                guard (0..<7).allSatisfy({ line[start + $0] == pattern[$0] }) else { continue }
                let before = (start - 4..<start).allSatisfy { $0 < 0 || !line[$0] }
                let after = (start + 7..<start + 11).allSatisfy { $0 >= n || !line[$0] }
                if before || after {
                    score += 40
                    // segno resumes its search after a counted pattern, so it misses a second
                    // pattern sharing the last module (1011101011101).
                    if segnoStyle { start += 6 }
                }
            }
        }
        for y in 0..<(n - 1) {
            for x in 0..<(n - 1) where rows[y][x] == rows[y][x + 1] && rows[y][x] == rows[y + 1][x] && rows[y][x] == rows[y + 1][x + 1] {
                score += 3
            }
        }
        let dark = rows.reduce(0) { $0 + $1.filter { $0 }.count }
        score += 10 * (abs(dark * 100 - 50 * n * n) / (5 * n * n))
        return score
    }

    /// The mask with the lowest `isoPenalty` over the eight forced-mask symbols of `segment`;
    /// with `withoutFormat`, scored as segno does: the format and version areas and the dark
    /// module left light during evaluation, and no second N3 pattern sharing a module with a
    /// counted one.
    static func referenceBestMask(_ segment: QRSegment, _ level: QRErrorCorrection, version: Int, withoutFormat: Bool) throws -> Int {
        var best = (mask: -1, score: Int.max)
        for mask in 0..<8 {
            let code = try QRCode.encode(segments: [segment], errorCorrection: level, minVersion: version, maxVersion: version, mask: mask)
            var rows = (0..<code.size).map { y in (0..<code.size).map { x in code[x, y] } }
            if withoutFormat {
                let n = code.size
                for i in 0..<9 where i != 6 { rows[8][i] = false; rows[i][8] = false }
                for i in 0..<8 { rows[8][n - 1 - i] = false; rows[n - 1 - i][8] = false }
                if version >= 7 {
                    for i in 0..<6 { for j in (n - 11)..<(n - 8) { rows[i][j] = false; rows[j][i] = false } }
                }
            }
            let score = isoPenalty(rows, segnoStyle: withoutFormat)
            if score < best.score { best = (mask, score) }
        }
        return best.mask
    }

    @Test("the encoder's bit-parallel penalty equals the reference scorer for every mask")
    func penaltiesMatchReference() throws {
        var generator = SeededGenerator(seed: 11)
        for version in [1, 2, 6, 7, 13, 18, 22, 27, 33, 40] {
            for level in QRErrorCorrection.allCases where version < 20 || level.rawValue == version % 4 {
                let capacity = QRCode.dataCapacityBits(version: version, errorCorrection: level) / 8 - 3
                let data = (0..<(Int(generator.next() % UInt64(capacity)) + 1)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                let segment = QRSegment.bytes(data)
                let unmasked = try QRCode.encode(segments: [segment], errorCorrection: level, minVersion: version, maxVersion: version, mask: 0)
                var builder = QRSymbolBuilder(version: version, level: level)
                let codewords = QRCode.interleavedCodewords(
                    data: try Self.dataCodewords(of: unmasked), version: version, level: level)
                builder.placeCodewords(codewords)
                let penalties = builder.maskPenalties()
                for mask in 0..<8 {
                    let code = try QRCode.encode(segments: [segment], errorCorrection: level, minVersion: version, maxVersion: version, mask: mask)
                    let rows = (0..<code.size).map { y in (0..<code.size).map { x in code[x, y] } }
                    #expect(penalties[mask] == Self.isoPenalty(rows), "\(version)-\(level) mask \(mask)")
                }
            }
        }
    }

    /// The data codewords of a symbol, read back by unmasking (via the test reader's layout).
    static func dataCodewords(of code: QRCode) throws -> [UInt8] {
        var builder = QRSymbolBuilder(version: code.version, level: code.errorCorrection)
        builder.drawFormatBits(mask: code.mask)
        var bits: [Bool] = []
        var right = code.size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for vertical in 0..<code.size {
                let y = upward ? code.size - 1 - vertical : vertical
                for x in [right, right - 1] where !builder.isFunction[y * code.size + x] {
                    bits.append(code[x, y] != QRSymbolBuilder.maskInverts(code.mask, x: x, y: y))
                }
            }
            right -= 2
        }
        let total = QRTables.totalCodewords(version: code.version)
        let interleaved = (0..<total).map { i in (0..<8).reduce(UInt8(0)) { $0 << 1 | (bits[i * 8 + $1] ? 1 : 0) } }
        // De-interleave the data part only.
        let blocks = QRTables.errorCorrectionBlocks[code.errorCorrection.rawValue][code.version]
        let ecc = QRTables.eccCodewordsPerBlock[code.errorCorrection.rawValue][code.version]
        let shortBlocks = blocks - total % blocks
        let shortData = total / blocks - ecc
        var perBlock = [[UInt8]](repeating: [], count: blocks)
        var position = 0
        for j in 0...shortData {
            for block in 0..<blocks where j < shortData || block >= shortBlocks {
                perBlock[block].append(interleaved[position])
                position += 1
            }
        }
        return perBlock.flatMap { $0 }
    }

    /// The vectors whose eight masks are scored by the (slow, simple) reference scorer:
    /// versions 1–9 and 22 at every level, and 14 and 40 at one level each.
    static let penaltySample = SegnoFixture.vectors.filter {
        $0.version <= 9 || $0.version == 22 || ($0.version == 14 && $0.level == "Q") || ($0.version == 40 && $0.level == "L")
    }

    @Test("the automatic mask has the lowest ISO penalty over the complete symbol (ISO/IEC 18004:2015 §7.8.3.1)")
    func automaticMaskIsBest() throws {
        for vector in Self.penaltySample {
            let segment = try Self.segnoContent(vector)
            let level = Self.level(vector.level)
            let code = try QRCode.encode(segments: [segment], errorCorrection: level, maxVersion: vector.version)
            let expected = try Self.referenceBestMask(segment, level, version: vector.version, withoutFormat: false)
            #expect(code.mask == expected, "\(vector.version)-\(vector.level)")
        }
    }

    /// segno scores the masks before drawing format and version information (its reading of
    /// §7.8; the 2015 text of §7.8.3.1 says the complete symbol is evaluated, which this encoder
    /// follows), and counts no N3 pattern overlapping a counted one. Scoring segno's way, the
    /// independent scorer above picks segno's mask for every vector: so the scorer, and with it
    /// the encoder's N1–N4, agree with an independent implementation apart from those two
    /// documented choices.
    @Test("the reference scorer reproduces segno's automatic masks when scoring without format information")
    func referenceScorerMatchesSegno() throws {
        for vector in Self.penaltySample {
            let segment = try Self.segnoContent(vector)
            let level = Self.level(vector.level)
            let mask = try Self.referenceBestMask(segment, level, version: vector.version, withoutFormat: true)
            #expect(mask == vector.autoMask, "\(vector.version)-\(vector.level)")
            if mask == vector.autoMask {
                let code = try QRCode.encode(segments: [segment], errorCorrection: level, maxVersion: vector.version, mask: mask)
                #expect(QRTestSupport.matrixCRC(code) == vector.autoCRC)
            }
        }
    }

    @Test("\"01234567\" at 1-M, the ISO Annex I data, as a whole symbol (rows as drawn by segno 1.6.6)")
    func annexSymbol() throws {
        let code = try QRCode.encode(segments: [.numeric("01234567")], errorCorrection: .medium, mask: 3)
        #expect(QRTestSupport.rows(code) == [
            "#######.##.##.#######",
            "#.....#.#.#...#.....#",
            "#.###.#..##.#.#.###.#",
            "#.###.#.##....#.###.#",
            "#.###.#..##...#.###.#",
            "#.....#..##...#.....#",
            "#######.#.#.#.#######",
            "........##...........",
            "#.##.###..#...#..#.##",
            "...#.#.##.#.#..#.##..",
            "#..#.####...#####..#.",
            "##.#...#..#.##...#.#.",
            "...######..#.#..#....",
            "........###..#.#....#",
            "#######.#....##.#.##.",
            "#.....#.#.#####...#.#",
            "#.###.#..#.#..#.....#",
            "#.###.#.#.#..#..#.##.",
            "#.###.#.#.##.#..#.#..",
            "#.....#..#.##.#.##.##",
            "#######.#..##..#...#.",
        ])
    }

    // MARK: Segments and errors

    @Test("segment bit lengths follow the mode rules")
    func segmentLengths() throws {
        #expect(try QRSegment.numeric("").dataBitCount == 0)
        #expect(try QRSegment.numeric("1").dataBitCount == 4)
        #expect(try QRSegment.numeric("12").dataBitCount == 7)
        #expect(try QRSegment.numeric("123").dataBitCount == 10)
        #expect(try QRSegment.numeric("1234").dataBitCount == 14)
        #expect(try QRSegment.alphanumeric("A").dataBitCount == 6)
        #expect(try QRSegment.alphanumeric("AB").dataBitCount == 11)
        #expect(QRSegment.byte("é").characterCount == 2)  // UTF-8 bytes
        #expect(QRSegment.automatic("0123").mode == .numeric)
        #expect(QRSegment.automatic("HTTPS://X.ORG/A").mode == .alphanumeric)
        #expect(QRSegment.automatic("shc:/56").mode == .byte)
        // Character count widths: 10/12/14, 9/11/13, 8/16/16.
        #expect([9, 10, 26, 27].map { QRSegment.Mode.numeric.characterCountBits(version: $0) } == [10, 12, 12, 14])
        #expect([9, 10, 26, 27].map { QRSegment.Mode.alphanumeric.characterCountBits(version: $0) } == [9, 11, 11, 13])
        #expect([9, 10, 26, 27].map { QRSegment.Mode.byte.characterCountBits(version: $0) } == [8, 16, 16, 16])
    }

    @Test("invalid input gives typed errors with context")
    func typedErrors() {
        #expect(throws: QRCodeError.invalidNumericCharacter("x", offset: 3)) { try QRSegment.numeric("012x4") }
        #expect(throws: QRCodeError.invalidNumericCharacter("٣", offset: 0)) { try QRSegment.numeric("٣") }  // Arabic-Indic three
        #expect(throws: QRCodeError.invalidAlphanumericCharacter("a", offset: 1)) { try QRSegment.alphanumeric("Ba") }
        #expect(throws: QRCodeError.invalidMask(8)) { try QRCode.encode(segments: [], mask: 8) }
        #expect(throws: QRCodeError.invalidMask(-1)) { try QRCode.encode(segments: [], mask: -1) }
        #expect(throws: QRCodeError.invalidVersionRange(minVersion: 0, maxVersion: 5)) { try QRCode.encode(segments: [], minVersion: 0, maxVersion: 5) }
        #expect(throws: QRCodeError.invalidVersionRange(minVersion: 5, maxVersion: 4)) { try QRCode.encode(segments: [], minVersion: 5, maxVersion: 4) }
        #expect(throws: QRCodeError.invalidVersionRange(minVersion: 1, maxVersion: 41)) { try QRCode.encode(segments: [], maxVersion: 41) }
        #expect(throws: QRCodeError.dataTooLong(maxVersion: 1, errorCorrection: .high, capacityBits: 72, requiredBits: 4 + 8 + 80)) {
            try QRCode.encode(segments: [.byte("0123456789")], errorCorrection: .high, maxVersion: 1)
        }
        let error = QRCodeError.dataTooLong(maxVersion: 1, errorCorrection: .high, capacityBits: 72, requiredBits: 92)
        #expect(error.description == "data needs 92 bits but QR version 1-H holds 72 data bits: 20 bits (3 bytes) too long")
        #expect(QRCodeError.invalidNumericCharacter(" ", offset: 2).description.contains("U+0020"))
    }

    @Test("the smallest version in range is chosen, and minVersion is honoured")
    func versionChoice() throws {
        #expect(try QRCode.encode(segments: [], errorCorrection: .high).version == 1)
        #expect(try QRCode.encode(segments: [.byte("hello")], minVersion: 7).version == 7)
        let text = String(repeating: "a", count: 100)
        let code = try QRCode.encode(segments: [.byte(text)], errorCorrection: .medium)
        #expect(code.version == 6)  // 5-M holds 84 bytes, 6-M 106
        #expect(code.size == 41)
        #expect(try QRTestReader.read(code) == [.byte(Array(text.utf8))])
        #expect(try QRCode.encode(text: "01234567", errorCorrection: .medium) == QRCode.encode(segments: [.numeric("01234567")], errorCorrection: .medium))
    }
}
