import CommonSupport
import Testing
import TestSupport

@Suite("base64 with the alphabet and padding chosen per call")
struct Base64FormTests {
    @Test("Every length round-trips in each form")
    func roundTripsEveryLength() throws {
        var random = SplitMix64(seed: 11)
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(try Base64URL.decode(Base64URL.encodeStandard(bytes), alphabet: .standard, padding: .required) == bytes)
            #expect(try Base64URL.decode(Base64URL.encode(bytes), alphabet: .url, padding: .forbidden) == bytes)
            #expect(try Base64URL.decode(Base64URL.encode(bytes), alphabet: .either, padding: .optional) == bytes)
        }
    }

    @Test("Each rejection is a typed problem with where")
    func rejectsWithTypedErrors() {
        #expect(throws: Base64URL.Problem.missingPadding) { try Base64URL.decode("QQ", alphabet: .standard, padding: .required) }
        #expect(throws: Base64URL.Problem.padding(offset: 2)) { try Base64URL.decode("QQ==", alphabet: .url, padding: .forbidden) }
        #expect(throws: Base64URL.Problem.invalidCharacter(offset: 0)) { try Base64URL.decode("-A==", alphabet: .standard, padding: .required) }
        #expect(throws: Base64URL.Problem.invalidCharacter(offset: 0)) { try Base64URL.decode("+A", alphabet: .url, padding: .forbidden) }
        #expect(throws: Base64URL.Problem.nonCanonical) { try Base64URL.decode("QR==", alphabet: .standard, padding: .required) }
        #expect(throws: Base64URL.Problem.invalidLength) { try Base64URL.decode("Q", alphabet: .standard, padding: .optional) }
        #expect(throws: Base64URL.Problem.invalidPadding(offset: 1)) { try Base64URL.decode("Q===", alphabet: .standard, padding: .optional) }
        #expect(throws: Base64URL.Problem.invalidPadding(offset: 3)) { try Base64URL.decode("QUE==", alphabet: .standard, padding: .optional) }
    }

    @Test("Random bytes decode or are refused with a problem, never a crash; the strict form agrees with the strict decoder")
    func fuzz() {
        var random = SplitMix64(seed: 0xB64F)
        let alphabet = Array("AQgw+/-_=a9".utf8) + [0x00, 0xC3]
        for _ in 0..<3_000 {
            let text = (0..<random.below(14)).map { _ in alphabet[random.below(alphabet.count)] }
            let strict = try? Base64URL.decode(utf8: text, alphabet: .url, padding: .forbidden)
            #expect(strict == (try? Base64URL.decode(text)))
            _ = try? Base64URL.decode(utf8: text, alphabet: .either, padding: .optional)
        }
    }
}
