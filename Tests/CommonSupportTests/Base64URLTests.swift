import CommonSupport
import Foundation
import Testing
import TestSupport

@Suite("base64url and base64")
struct Base64URLTests {
    @Test("Random bytes round-trip, and agree with Foundation's standard base64")
    func roundTrip() throws {
        var generator = SplitMix64(seed: 0xB64)
        for length in 0..<200 {
            let bytes = generator.bytes(length)
            let url = Base64URL.encode(bytes)
            #expect(!url.contains("=") && !url.contains("+") && !url.contains("/"))
            #expect(try Base64URL.decode(url) == bytes)
            let standard = Base64URL.encodeStandard(bytes)
            #expect(standard == Data(bytes).base64EncodedString())
            #expect(Base64URL.decodeStandard(standard) == bytes)
        }
    }

    @Test("Strict: padding, the standard alphabet and impossible lengths are refused, with where", arguments: [
        ("YQ==", Base64URL.Problem.padding(offset: 2)),
        ("YQ=", .padding(offset: 2)),
        ("ab+c", .invalidCharacter(offset: 2)),
        ("ab/c", .invalidCharacter(offset: 2)),
        ("abcde", .invalidLength),
        ("ab c", .invalidCharacter(offset: 2)),
    ])
    func strict(_ text: String, _ problem: Base64URL.Problem) {
        #expect(throws: problem) { try Base64URL.decode(text) }
        #expect(Base64URL.problem(in: Array(text.utf8)) == problem)
    }
}
