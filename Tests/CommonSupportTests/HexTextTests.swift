import CommonSupport
import Foundation
import Testing
import TestSupport

/// The package's one hex writer and reader (`HexText`; FhirBlocks' `Hex`, sync identifiers,
/// key file names and the web session's tokens go through it).
@Suite struct HexTextTests {
    /// `%02x` of each byte, joined: the reference the writer must match.
    static func reference(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test("Random bytes (0 to 300, contiguous or not) are written as %02x writes each, and read back")
    func writesAsPrintfAndReadsBack() {
        var generator = SplitMix64(seed: 0x4E7)
        #expect(HexText.encode([UInt8]()) == "")
        #expect(HexText.encode([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
        for _ in 0..<2_000 {
            let bytes = generator.bytes(generator.int(0...300))
            let expected = Self.reference(bytes)
            #expect(HexText.encode(bytes) == expected)
            // A sequence without contiguous storage takes the other path to the same text.
            #expect(HexText.encode(bytes.lazy.map { $0 }) == expected)
            #expect(HexText.encode(AnySequence(bytes)) == expected)
            #expect(HexText.decode(expected) == bytes)
            #expect(HexText.decode(expected.uppercased()) == bytes)
        }
    }

    @Test("Random text is read only when it is an even number of hex digits (either case), as the bytes it spells")
    func readsOnlyHex() {
        var generator = SplitMix64(seed: 0x4E8)
        let alphabet = Array("0123456789abcdefABCDEFgG xz-é\u{0}".unicodeScalars)
        for _ in 0..<5_000 {
            let text = String(String.UnicodeScalarView((0..<generator.int(0...12)).map { _ in alphabet[generator.below(alphabet.count)] }))
            let isHex = text.utf8.count % 2 == 0 && text.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit }
            let decoded = HexText.decode(text)
            #expect((decoded != nil) == isHex, "\(text.debugDescription)")
            if let decoded { #expect(HexText.encode(decoded) == text.lowercased()) }
        }
    }
}
