import Testing
@testable import QRCode

@Suite("QR property tests (seeded)")
struct QRPropertyTests {
    /// Characters drawn from several pools so that every mode and multi-byte UTF-8 come up.
    static func randomText(length: Int, using generator: inout SeededGenerator) -> String {
        let pools: [[Character]] = [
            Array("0123456789"),
            Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"),
            Array("abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789-_.~!@#&()[]{}<>?,;'\"\\|\t\n"),
            Array("éüßøñçåЖжΩπ中文字健康カード한국어🩺💉✅"),
        ]
        let pool = pools[Int(generator.next() % UInt64(pools.count))]
        let mixed = generator.next() % 4 == 0
        return String((0..<length).map { _ in
            let source = mixed ? pools[Int(generator.next() % UInt64(pools.count))] : pool
            return source[Int(generator.next() % UInt64(source.count))]
        })
    }

    /// A random length, mostly small, sometimes near or past the largest capacities.
    static func randomLength(using generator: inout SeededGenerator) -> Int {
        switch generator.next() % 10 {
        case 0..<5: return Int(generator.next() % 60)
        case 5..<8: return Int(generator.next() % 600)
        default: return Int(generator.next() % 8000)
        }
    }

    struct Sample {
        let code: QRCode
        let bytes: [UInt8]
    }

    /// Encodes random texts and random multi-segment data at `level`; every symbol reads back
    /// exactly with the test reader, and data that does not fit throws `dataTooLong` with honest
    /// figures.
    static func generateSamples(level: QRErrorCorrection, seed: UInt64, count: Int) throws -> [Sample] {
        var generator = SeededGenerator(seed: seed)
        var samples: [Sample] = []
        for _ in 0..<count {
            var segments: [QRSegment] = []
            var expected: [QRTestReader.Segment] = []
            var bytes: [UInt8] = []
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let text = randomText(length: randomLength(using: &generator), using: &generator)
                let segment = QRSegment.automatic(text)
                segments.append(segment)
                expected.append(.init(mode: segment.mode, bytes: Array(text.utf8)))
                bytes += Array(text.utf8)
            }
            let mask: Int? = generator.next() % 3 == 0 ? Int(generator.next() % 8) : nil
            let minVersion = generator.next() % 5 == 0 ? 1 + Int(generator.next() % 40) : 1
            do {
                let code = try QRCode.encode(segments: segments, errorCorrection: level, minVersion: minVersion, mask: mask)
                #expect(code.version >= minVersion)
                #expect(code.errorCorrection == level)
                if let mask { #expect(code.mask == mask) }
                let read = try QRTestReader.read(code)
                // Empty segments are kept as written (a zero count); compare them too.
                #expect(read == expected)
                // The version is the smallest in range that fits.
                if code.version > minVersion {
                    let smaller = QRCode.requiredBits(segments: segments, version: code.version - 1)
                    #expect(smaller.map { $0 > QRCode.dataCapacityBits(version: code.version - 1, errorCorrection: level) } ?? true)
                }
                samples.append(Sample(code: code, bytes: bytes))
            } catch let error as QRCodeError {
                guard case let .dataTooLong(maxVersion, errorLevel, capacity, required) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(maxVersion == 40 && errorLevel == level)
                #expect(capacity == QRCode.dataCapacityBits(version: 40, errorCorrection: level))
                #expect(required > capacity)
                #expect(error.description.contains("\(required - capacity) bit"))
            }
        }
        return samples
    }

    @Test("random data of random lengths encodes and reads back exactly at every level", arguments: QRErrorCorrection.allCases)
    func randomRoundTrips(level: QRErrorCorrection) throws {
        let samples = try Self.generateSamples(level: level, seed: 0x5EED + UInt64(level.rawValue), count: 60)
        #expect(samples.count > 30)
    }

    @Test("random symbols at every level decode with the peer to exactly their bytes",
          .enabled(if: QRPeerDecoder.isAvailable, QRPeerDecoder.unavailable))
    func randomPeerRoundTrips() async throws {
        var samples: [Sample] = []
        for level in QRErrorCorrection.allCases {
            samples += try Self.generateSamples(level: level, seed: 0xC0FFEE + UInt64(level.rawValue), count: 40)
        }
        // zxing-cpp reports nothing for an empty symbol.
        samples.removeAll { $0.bytes.isEmpty }
        #expect(samples.count > 100)
        let decoded = try await QRPeerDecoder.decode(samples.map(\.code), moduleSize: 3)
        for (index, result) in decoded.enumerated() {
            QRPeerTests.check(result, samples[index].code, expected: samples[index].bytes, "random #\(index)")
        }
    }

    @Test("invalid characters are reported with their offset")
    func invalidCharacters() {
        var generator = SeededGenerator(seed: 404)
        for _ in 0..<200 {
            let length = 1 + Int(generator.next() % 50)
            var digits = Array(String((0..<length).map { _ in Character(String(generator.next() % 10)) }).unicodeScalars)
            let position = Int(generator.next() % UInt64(length))
            let bad: [Unicode.Scalar] = ["a", " ", "-", ".", "٣", "🩺", "\u{0}", "Z"]
            let scalar = bad[Int(generator.next() % UInt64(bad.count))]
            digits[position] = scalar
            var text = ""
            text.unicodeScalars.append(contentsOf: digits)
            #expect(throws: QRCodeError.invalidNumericCharacter(scalar, offset: position)) { try QRSegment.numeric(text) }

            var alphanumeric = Array(String(repeating: "A", count: length).unicodeScalars)
            let lower: [Unicode.Scalar] = ["a", "z", "_", "#", "é", "\n"]
            let wrong = lower[Int(generator.next() % UInt64(lower.count))]
            alphanumeric[position] = wrong
            var alphanumericText = ""
            alphanumericText.unicodeScalars.append(contentsOf: alphanumeric)
            #expect(throws: QRCodeError.invalidAlphanumericCharacter(wrong, offset: position)) { try QRSegment.alphanumeric(alphanumericText) }
        }
    }

    @Test("SHC digit pairs above 77 are reported at their offset, anywhere in the data")
    func invalidPairs() {
        var generator = SeededGenerator(seed: 77)
        for _ in 0..<100 {
            let jws = QRTestSupport.fakeJWS(count: 1 + Int(generator.next() % 400), using: &generator)
            var digits = Array(QRTestSupport.shcDigits(jws: jws))
            let pair = Int(generator.next() % UInt64(digits.count / 2))
            let value = 78 + Int(generator.next() % 22)
            digits[pair * 2] = Character(String(value / 10))
            digits[pair * 2 + 1] = Character(String(value % 10))
            #expect(throws: QRCodeError.digitPairOutOfRange(pair: value, offset: pair * 2)) {
                try QRCode.smartHealthCard(numeric: String(digits))
            }
        }
    }
}
