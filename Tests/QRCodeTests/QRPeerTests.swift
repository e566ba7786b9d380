import Foundation
import Testing
@testable import QRCode

@Suite("QR codes decoded by a peer (zxing-cpp)", .enabled(if: QRPeerDecoder.isAvailable, QRPeerDecoder.unavailable))
struct QRPeerTests {
    /// Checks that the peer read `code` back as `expected` bytes, at our version, level and mask.
    static func check(_ decoded: QRPeerDecoder.Decoded, _ code: QRCode, expected: [UInt8], _ name: String) {
        #expect(decoded.error == nil, "\(name): \(decoded.error ?? "")")
        #expect(decoded.contentBytes == expected, "\(name): content differs")
        #expect(decoded.extra?.Version == String(code.version), "\(name): version")
        #expect(decoded.extra?.ECLevel == code.errorCorrection.description, "\(name): level")
        #expect(decoded.extra?.DataMask == code.mask, "\(name): mask")
    }

    @Test("SMART Health Card payloads from 1 to 1195 JWS characters decode to exactly their text")
    func smartHealthCards() async throws {
        var generator = SeededGenerator(seed: 1195)
        var inputs: [String] = []
        var codes: [QRCode] = []
        for count in [1, 7, 50, 120, 333, 500, 640, 800, 950, 1095, 1150, 1191, 1195] {
            let digits = QRTestSupport.shcDigits(jws: QRTestSupport.fakeJWS(count: count, using: &generator))
            let prefix = count == 1191 ? "shc:/2/2/" : count == 1095 ? "shc:/1/3/" : "shc:/"
            codes.append(try QRCode.smartHealthCard(prefix: prefix, numeric: digits))
            inputs.append(prefix + digits)
        }
        #expect(codes.last?.version == 22)
        let decoded = try await QRPeerDecoder.decode(codes)
        for (index, result) in decoded.enumerated() {
            #expect(result.text == inputs[index])
            Self.check(result, codes[index], expected: Array(inputs[index].utf8), "SHC #\(index)")
            #expect(codes[index].errorCorrection == .low)
        }
    }

    @Test("the official example 00 text, encoded here, decodes to itself",
          .enabled(if: QRTestSupport.specExamples != nil, Comment(rawValue: QRTestSupport.specExamplesMissing)))
    func officialExample() async throws {
        let folder = try #require(QRTestSupport.specExamples)
        var texts: [String] = []
        for name in ["example-00-f-qr-code-numeric-value-0.txt", "example-02-f-qr-code-numeric-value-1.txt"] {
            texts.append(try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let codes = try texts.map { try QRCode.smartHealthCard(numeric: $0) }
        let decoded = try await QRPeerDecoder.decode(codes)
        for (index, result) in decoded.enumerated() {
            #expect(result.text == texts[index])
            Self.check(result, codes[index], expected: Array(texts[index].utf8), "official #\(index)")
        }
    }

    @Test("byte, numeric and alphanumeric data at every level and every forced mask decode exactly")
    func levelsAndMasks() async throws {
        let texts = ["Hello, world!", "https://smarthealth.cards/#health-card", "Grüße, 健康 🩺", String(repeating: "0123456789", count: 30),
                     "HTTPS://EXAMPLE.ORG/PATIENT/123", "7"]  // (zxing-cpp reports no result for an empty symbol)
        var codes: [QRCode] = []
        var expected: [[UInt8]] = []
        for (index, text) in texts.enumerated() {
            for level in QRErrorCorrection.allCases {
                for mask in 0..<8 where (mask + index) % 2 == 0 || level == .low {
                    codes.append(try QRCode.encode(text: text, errorCorrection: level, mask: mask))
                    expected.append(Array(text.utf8))
                }
            }
        }
        let decoded = try await QRPeerDecoder.decode(codes)
        for index in decoded.indices {
            Self.check(decoded[index], codes[index], expected: expected[index], "#\(index)")
        }
    }

    @Test("mixed segments and high versions (up to 40) decode exactly")
    func mixedAndLarge() async throws {
        var codes: [QRCode] = []
        var expected: [[UInt8]] = []
        let cases: [([QRSegment], String)] = [
            ([.byte("Order "), try .numeric("00012345"), try .alphanumeric(" SHIPPED:OK")], "Order 00012345 SHIPPED:OK"),
            ([.byte(String(repeating: "b", count: 2953))], String(repeating: "b", count: 2953)),  // 40-L byte capacity
            ([try .numeric(String(repeating: "9", count: 7089))], String(repeating: "9", count: 7089)),  // 40-L numeric capacity
            ([.byte(String(repeating: "h", count: 1273))], String(repeating: "h", count: 1273)),  // 40-H
        ]
        for (index, (segments, text)) in cases.enumerated() {
            let level: QRErrorCorrection = index == 3 ? .high : .low
            codes.append(try QRCode.encode(segments: segments, errorCorrection: level))
            expected.append(Array(text.utf8))
        }
        #expect(codes.dropFirst().allSatisfy { $0.version == 40 })
        let decoded = try await QRPeerDecoder.decode(codes, moduleSize: 3)
        for index in decoded.indices {
            Self.check(decoded[index], codes[index], expected: expected[index], "#\(index)")
        }
    }
}
