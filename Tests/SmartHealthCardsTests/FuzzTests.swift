import CommonSupport
import ExactJSON
import Foundation
import Testing
@testable import SmartHealthCards
import TestSupport

/// A small deterministic generator (SplitMix64) so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random and mutated inputs never crash, hang or produce unbounded output.
@Suite struct FuzzTests {
    static let base64URL = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static let validJWS: String = {
        let key = SHCIssuerKey.generate()
        return (try? SHCIssuer(key: key, issuer: TestCards.issuer).issue(bundle: TestCards.bundle, nbf: Date(timeIntervalSince1970: TestCards.nbf))) ?? ""
    }()

    @Test func mutatedCardsNeverCrashAndNeverVerify() async throws {
        var random = SeededGenerator(seed: 1)
        let key = SHCIssuerKey.generate()
        let jws = try SHCIssuer(key: key, issuer: TestCards.issuer).issue(bundle: TestCards.bundle, nbf: Date(timeIntervalSince1970: TestCards.nbf))
        let verifier = SHCVerifier(resolver: StaticKeyResolver([TestCards.issuer: SHCJWKSet(keys: [key.publicJWK])]), now: TestCards.now)
        #expect(await verifier.verify(jws).isValid)
        let original = Array(jws.utf8)
        for round in 0..<600 {
            var bytes = original
            for _ in 0...(round % 4) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[position] = Self.base64URL.randomElement(using: &random) ?? 0x41
                case 1: bytes[position] = UInt8.random(in: 0...255, using: &random)
                case 2: bytes.remove(at: position)
                default: bytes.insert(Self.base64URL.randomElement(using: &random) ?? 0x41, at: position)
                }
            }
            let report = await verifier.verify(utf8: bytes)
            #expect(report.isValid == report.errors.isEmpty)
            if bytes != original, report.isValid {
                // Only a change that decodes to the same bytes (unused low bits of a segment's last
                // base64url character) can leave a card valid.
                let decoded = try? CompactJWS(bytes)
                let originalDecoded = try CompactJWS(original)
                #expect(decoded?.header == originalDecoded.header && decoded?.payload == originalDecoded.payload
                        && decoded?.signature == originalDecoded.signature)
            }
        }
    }

    @Test func randomTextNeverCrashesTheVerifierOrInput() async {
        var random = SeededGenerator(seed: 2)
        let verifier = SHCVerifier(resolver: StaticKeyResolver([:]), now: TestCards.now)
        let alphabets: [[UInt8]] = [Self.base64URL + [UInt8(ascii: ".")], Array("0123456789/shc:\n".utf8),
                                    Array("{}[]\":,0123456789abcdefghijklmnopqrstuvwxyz \\".utf8)]
        for round in 0..<1_500 {
            let alphabet = alphabets[round % alphabets.count]
            let length = Int.random(in: 0..<300, using: &random)
            var bytes = (0..<length).map { _ in alphabet.randomElement(using: &random) ?? 0 }
            if round % 5 == 0 { bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) } }
            if round % 7 == 0 { bytes = Array("shc:/".utf8) + bytes.filter { $0 >= 0x30 && $0 <= 0x39 } }
            _ = try? SHCInput.parse(bytes)
            _ = try? SHCInput.parse(bytes, allowSurroundingWhitespace: true)
            _ = try? SHCLimits.default.parseJSON(bytes)
            let report = await verifier.verify(utf8: bytes)
            #expect(!report.isValid)
            #expect(!report.signatureValid)
        }
    }

    @Test func mutatedNumericTextNeverCrashes() throws {
        var random = SeededGenerator(seed: 3)
        let numeric = Array(try SHCNumeric.encode(Self.validJWS).utf8)
        for _ in 0..<1_000 {
            var bytes = numeric
            let position = Int.random(in: 5..<bytes.count, using: &random)
            bytes[position] = Array("0123456789/x".utf8).randomElement(using: &random) ?? 0x30
            if Bool.random(using: &random) { bytes.removeLast(Int.random(in: 0..<3, using: &random)) }
            _ = try? SHCInput.parse(bytes)
        }
        // Every JWS-alphabet string round-trips through the numeric encoding.
        for _ in 0..<200 {
            let text = String(decoding: (0..<Int.random(in: 1..<200, using: &random)).map { _ in Self.base64URL.randomElement(using: &random) ?? 0x41 },
                              as: UTF8.self)
            #expect(try SHCNumeric.decode(try SHCNumeric.encode(text)).jws == text)
        }
    }

    @Test func inflateIsBoundedAndAlwaysTerminates() throws {
        var random = SeededGenerator(seed: 4)
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0..<200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if let output = try? RawDeflate.inflate(bytes, limit: 4_096) { #expect(output.count <= 4_096) }
        }
        // Mutated valid streams.
        let stream = RawDeflate.deflate(TestCards.payload().serialized())
        for _ in 0..<2_000 {
            var bytes = stream
            bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            if let output = try? RawDeflate.inflate(bytes, limit: 1 << 16) { #expect(output.count <= 1 << 16) }
        }
        // A bomb: 100 MB of zeros compress to about 100 kB; the limit stops it early.
        let bomb = RawDeflate.deflate([UInt8](repeating: 0, count: 20_000_000))
        #expect(bomb.count < 40_000)
        #expect(throws: RawDeflate.InflateProblem.tooLarge(limit: 1 << 20)) { try RawDeflate.inflate(bomb, limit: 1 << 20) }
        // Exactly at the limit is fine.
        let exact = RawDeflate.deflate([UInt8](repeating: 7, count: 5_000))
        #expect(try RawDeflate.inflate(exact, limit: 5_000).count == 5_000)
        #expect(throws: RawDeflate.InflateProblem.tooLarge(limit: 4_999)) { try RawDeflate.inflate(exact, limit: 4_999) }
    }

    @Test func jsonParserIsStrictAndBounded() throws {
        var random = SeededGenerator(seed: 5)
        let document = TestCards.payload().serialized()
        #expect(try SHCLimits.default.parseJSON(document) == TestCards.payload())
        for _ in 0..<2_000 {
            var bytes = document
            bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            if let value = try? SHCLimits.default.parseJSON(bytes) {
                // Whatever parses, re-serializes and parses to the same value.
                #expect(try SHCLimits.default.parseJSON(value.serialized()) == value)
            }
        }
        let deep = Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        #expect(throws: JSONParseError.self) { try SHCLimits.default.parseJSON(deep) }
        for bad in [#"{"a":1,"a":2}"#, "[1,]", "01", "1.", "\"\u{01}\"", #""\ud800""#, #""\x""#, "[1] x", "{\"a\" 1}", "nul"] {
            #expect(throws: JSONParseError.self, "\(bad)") { try SHCLimits.default.parseJSON(Array(bad.utf8)) }
        }
        #expect(throws: JSONParseError(offset: 1, line: 1, column: 2, reason: .invalidUnicode)) { try SHCLimits.default.parseJSON([0x22, 0xC3, 0x28, 0x22]) }
        #expect(try SHCLimits.default.parseJSON(Array(#"{"\u0069d":"\ud83d\ude00\n","n":-1.5e+3}"#.utf8))
                == .object(members: [.init("id", .string("😀\n")), .init("n", .number("-1.5e+3"))]))
    }
}
