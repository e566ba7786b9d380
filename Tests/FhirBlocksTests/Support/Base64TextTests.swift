import Testing
@testable import FhirBlocks
import TestSupport

@Suite struct Base64TextTests {
    @Test func roundTripsEveryLength() throws {
        var random = SplitMix64(seed: 11)
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(try Base64Text.decode(Base64Text.encode(bytes)) == bytes)
            #expect(try Base64Text.decode(Base64Text.encodeURL(bytes), alphabet: .url, padding: .forbidden) == bytes)
            #expect(try Base64Text.decode(Base64Text.encodeURL(bytes), alphabet: .either, padding: .optional) == bytes)
        }
    }

    @Test func rejectsWithTypedErrors() {
        #expect(throws: Base64DecodingError.missingPadding) { try Base64Text.decode("QQ", padding: .required) }
        #expect(throws: Base64DecodingError.unexpectedPadding(offset: 2)) { try Base64Text.decode("QQ==", alphabet: .url, padding: .forbidden) }
        #expect(throws: Base64DecodingError.invalidCharacter(offset: 0)) { try Base64Text.decode("-A==", alphabet: .standard) }
        #expect(throws: Base64DecodingError.invalidCharacter(offset: 0)) { try Base64Text.decode("+A", alphabet: .url, padding: .forbidden) }
        #expect(throws: Base64DecodingError.nonCanonical) { try Base64Text.decode("QR==") }
        #expect(throws: Base64DecodingError.invalidLength(1)) { try Base64Text.decode("Q", padding: .optional) }
        #expect(throws: Base64DecodingError.invalidPadding(offset: 1)) { try Base64Text.decode("Q===", padding: .optional) }
        #expect(throws: Base64DecodingError.invalidPadding(offset: 3)) { try Base64Text.decode("QUE==", padding: .optional) }
    }
}
