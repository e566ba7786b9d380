import Foundation
import Testing
@testable import QRCode

@Suite("SMART Health Card QR codes")
struct QRSmartHealthCardTests {
    /// The official example QR codes: the numeric text and the SVG the spec publishes for it.
    static let officialExamples = [
        ("example-00-f-qr-code-numeric-value-0.txt", "example-00-g-qr-code-0.svg"),
        ("example-01-f-qr-code-numeric-value-0.txt", "example-01-g-qr-code-0.svg"),
        ("example-02-f-qr-code-numeric-value-0.txt", "example-02-g-qr-code-0.svg"),
        ("example-02-f-qr-code-numeric-value-1.txt", "example-02-g-qr-code-1.svg"),
        ("example-02-f-qr-code-numeric-value-2.txt", "example-02-g-qr-code-2.svg"),
        ("example-03-f-qr-code-numeric-value-0.txt", "example-03-g-qr-code-0.svg"),
    ]

    @Test("official example 00: ECL L, version 18 like the official QR, and the same symbol module for module",
          .enabled(if: QRTestSupport.specExamples != nil, Comment(rawValue: QRTestSupport.specExamplesMissing)))
    func officialExample00() throws {
        try checkOfficial(Self.officialExamples[0])
    }

    @Test("every official example (00–03, chunks included): same version, and the same symbol with the official mask",
          .enabled(if: QRTestSupport.specExamples != nil, Comment(rawValue: QRTestSupport.specExamplesMissing)))
    func officialExamples() throws {
        for example in Self.officialExamples.dropFirst() {
            try checkOfficial(example)
        }
    }

    private func checkOfficial(_ example: (String, String)) throws {
        let folder = try #require(QRTestSupport.specExamples)
        let text = try String(contentsOf: folder.appendingPathComponent(example.0), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let svg = try String(contentsOf: folder.appendingPathComponent(example.1), encoding: .utf8)
        let official = try #require(QRTestSupport.officialSVGMatrix(svg), "could not read \(example.1)")
        let officialVersion = (official.count - 17) / 4
        let format = QRTestSupport.formatMask(official)

        let code = try QRCode.smartHealthCard(numeric: text)
        #expect(code.errorCorrection == .low)
        // The official symbols come from node-qrcode, whose N3/N4 reading differs a little from
        // ISO's; our ISO choice is the same mask for all but chunk 1 of example 02 (1, not 7).
        if example.1 != "example-02-g-qr-code-0.svg" {
            #expect(code.mask == format.mask, "\(example.1): automatic mask \(code.mask), official \(format.mask)")
            #expect((0..<code.size).map { y in (0..<code.size).map { x in code[x, y] } } == official)
        }
        #expect(format.level == QRErrorCorrection.low.formatBits, "\(example.1) is not ECL L")
        #expect(code.version == officialVersion, "\(example.0): version \(code.version), official \(officialVersion)")
        #expect(code.version == (example.0.hasPrefix("example-02") ? 21 : 18))
        // Exactly two segments: byte "shc:/" (or "shc:/C/N/") and numeric.
        let segments = try QRTestReader.read(code)
        let prefixEnd = try #require(text.range(of: "^shc:/([0-9]+/[0-9]+/)?", options: .regularExpression)).upperBound
        #expect(segments == [.byte(Array(text[..<prefixEnd].utf8)), .numeric(String(text[prefixEnd...]))])

        // With the official mask forced, the symbols are identical.
        let sameMask = try QRCode.encode(segments: [.byte(String(text[..<prefixEnd])), .numeric(String(text[prefixEnd...]))],
                                         errorCorrection: .low, maxVersion: 22, mask: format.mask)
        let ours = (0..<sameMask.size).map { y in (0..<sameMask.size).map { x in sameMask[x, y] } }
        #expect(ours == official, "\(example.1) differs from our symbol with mask \(format.mask)")
    }

    // MARK: Size limits (rules 46 and 48)

    /// Rule 48: ⌊(8048 − 76) × 3/20⌋ = 1195, where 76 bits are the two segment headers and
    /// "shc:/" at version 22 (4 + 16 + 40 + 4 + 12: from version 10 on a byte count takes 16 bits).
    @Test("a 1195-character JWS (2390 digits) fits V22-L; 1196 does not, by 2 digits (rule 48)")
    func ruleLimit() throws {
        var generator = SeededGenerator(seed: 48)
        let jws = QRTestSupport.fakeJWS(count: 1196, using: &generator)
        let digits = QRTestSupport.shcDigits(jws: String(jws.prefix(1195)))
        #expect(digits.count == 2390)
        let code = try QRCode.smartHealthCard(numeric: digits)
        #expect(code.version == 22)
        #expect(code.errorCorrection == .low)
        #expect(QRCode.requiredBits(segments: [.byte("shc:/"), try .numeric(digits)], version: 22) == 76 + 7967)
        #expect(try QRTestReader.read(code) == [.byte(Array("shc:/".utf8)), .numeric(digits)])

        let tooLong = QRTestSupport.shcDigits(jws: jws)
        let expected = QRCodeError.smartHealthCardTooLong(maxVersion: 22, prefix: "shc:/", digits: 2392, maxDigits: 2390)
        #expect(throws: expected) { try QRCode.smartHealthCard(numeric: tooLong) }
        #expect(expected.description == "SMART Health Card data of 2392 digits (1196 JWS characters) after \"shc:/\" does not "
            + "fit QR version 22-L, which holds at most 2390 digits (1195 JWS characters): 2 digits (1 character) too long")
        // The general encoder says it in bits: 8050 needed, 8048 available.
        let bitsError = QRCodeError.dataTooLong(maxVersion: 22, errorCorrection: .low, capacityBits: 8048, requiredBits: 8050)
        #expect(throws: bitsError) {
            try QRCode.encode(segments: [.byte("shc:/"), .numeric(tooLong)], errorCorrection: .low, maxVersion: 22)
        }
        #expect(bitsError.description == "data needs 8050 bits but QR version 22-L holds 8048 data bits: 2 bits (1 byte) too long")
        // A chunk prefix takes 32 more bits: 1191 characters fit (rule 49), 1192 do not.
        let chunk = QRTestSupport.shcDigits(jws: String(jws.prefix(1191)))
        #expect(try QRCode.smartHealthCard(prefix: "shc:/1/2/", numeric: chunk).version == 22)
        #expect(throws: QRCodeError.smartHealthCardTooLong(maxVersion: 22, prefix: "shc:/1/2/", digits: 2384, maxDigits: 2382)) {
            try QRCode.smartHealthCard(prefix: "shc:/1/2/", numeric: QRTestSupport.shcDigits(jws: String(jws.prefix(1192))))
        }
    }

    @Test("a lower maxVersion lowers the limit, and the smallest fitting version is chosen")
    func maxVersion() throws {
        var generator = SeededGenerator(seed: 18)
        let digits = QRTestSupport.shcDigits(jws: QRTestSupport.fakeJWS(count: 800, using: &generator))
        let code = try QRCode.smartHealthCard(numeric: digits)
        #expect(code.version == 18)
        // dev-tools warns when a smaller version would fit: it does not.
        #expect(throws: QRCodeError.self) { try QRCode.smartHealthCard(numeric: digits, maxVersion: 17) }
        let error = try #require(throws: QRCodeError.self) { try QRCode.smartHealthCard(numeric: digits, maxVersion: 17) }
        guard case let .smartHealthCardTooLong(17, "shc:/", 1600, maxDigits) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        // maxDigits is the most (even) digits that fit 17-L beside "shc:/".
        let capacity = QRCode.dataCapacityBits(version: 17, errorCorrection: .low)
        let fits = try #require(QRCode.requiredBits(segments: [.byte("shc:/"), .numeric(String(repeating: "1", count: maxDigits))], version: 17))
        let tooMany = try #require(QRCode.requiredBits(segments: [.byte("shc:/"), .numeric(String(repeating: "1", count: maxDigits + 2))], version: 17))
        #expect(maxDigits < 1600 && maxDigits % 2 == 0)
        #expect(fits <= capacity && tooMany > capacity)
        #expect(throws: QRCodeError.invalidVersionRange(minVersion: 1, maxVersion: 41)) {
            try QRCode.smartHealthCard(numeric: "5676", maxVersion: 41)
        }
    }

    // MARK: Prefixes and chunks (rules 47, 49, 50)

    @Test("chunk prefixes become the byte segment, given apart or inside the numeric text")
    func chunkPrefixes() throws {
        let digits = "56762909524320603460292437404460"
        let apart = try QRCode.smartHealthCard(prefix: "shc:/2/3/", numeric: digits)
        let inside = try QRCode.smartHealthCard(numeric: "shc:/2/3/" + digits)
        #expect(apart == inside)
        #expect(try QRTestReader.read(apart) == [.byte(Array("shc:/2/3/".utf8)), .numeric(digits)])
        #expect(try QRCode.smartHealthCard(numeric: "shc:/" + digits) == QRCode.smartHealthCard(numeric: digits))
        #expect(try QRCode.smartHealthCard(prefix: "shc:/12/12/", numeric: digits).errorCorrection == .low)
    }

    @Test("malformed SHC input gives typed errors", arguments: [
        ("shc:/", "5676a9", QRCodeError.invalidNumericCharacter("a", offset: 4)),
        ("shc:/", "567", QRCodeError.oddDigitCount(3)),
        ("shc:/", "567678", QRCodeError.digitPairOutOfRange(pair: 78, offset: 4)),
        ("shc:/", "99", QRCodeError.digitPairOutOfRange(pair: 99, offset: 0)),
        ("shc:/0/3/", "5676", QRCodeError.invalidSmartHealthCardPrefix("shc:/0/3/")),
        ("shc:/4/3/", "5676", QRCodeError.invalidSmartHealthCardPrefix("shc:/4/3/")),
        ("shc:/1/3", "5676", QRCodeError.invalidSmartHealthCardPrefix("shc:/1/3")),
        ("shc:/01/3/", "5676", QRCodeError.invalidSmartHealthCardPrefix("shc:/01/3/")),
        ("SHC:/", "5676", QRCodeError.invalidSmartHealthCardPrefix("SHC:/")),
        ("https://", "5676", QRCodeError.invalidSmartHealthCardPrefix("https://")),
    ])
    func malformed(prefix: String, numeric: String, expected: QRCodeError) {
        #expect(throws: expected) { try QRCode.smartHealthCard(prefix: prefix, numeric: numeric) }
    }

    @Test("the numeric text form is split at its prefix, and a bad one is reported")
    func numericTextForm() {
        #expect(throws: QRCodeError.invalidNumericCharacter("/", offset: 2)) { try QRCode.smartHealthCard(numeric: "shc:/12/5676") }
        #expect(throws: QRCodeError.invalidNumericCharacter("s", offset: 0)) { try QRCode.smartHealthCard(numeric: "shc:5676") }
        #expect(throws: QRCodeError.oddDigitCount(1)) { try QRCode.smartHealthCard(numeric: "shc:/1/2/5") }
        #expect(throws: QRCodeError.invalidSmartHealthCardPrefix("shc:/3/2/")) { try QRCode.smartHealthCard(numeric: "shc:/3/2/56") }
    }
}
