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

@Suite("Canonical base64url")
struct CanonicalBase64URLTests {
    @Test("Stray bits in the last character are refused: one byte string, one text")
    func strayBits() throws {
        // "QQ" is "A"; "QR" decodes to the same byte with a stray bit set.
        #expect(try Base64URL.decode("QQ") == [0x41])
        #expect(throws: Base64URL.Problem.nonCanonical) { try Base64URL.decode("QR") }
        #expect(try Base64URL.decode("QUI") == [0x41, 0x42])
        #expect(throws: Base64URL.Problem.nonCanonical) { try Base64URL.decode("QUJ") }
        #expect(throws: CompactJWS.Problem.nonCanonical(segment: 2)) { try CompactJWS(Array("e30.e30.QR".utf8)) }
        #expect(try CompactJWS(Array("e30.e30.QQ".utf8)).signature == [0x41])
    }
}

@Suite("Compact JWS syntax check without decoding")
struct CompactJWSValidateTests {
    /// The outcome of parsing `text` with the decoding initializer, or of the syntax check alone.
    static func outcome(_ text: [UInt8], decoding: Bool) -> CompactJWS.Problem? {
        do {
            if decoding {
                _ = try CompactJWS(text)
            } else {
                try text.withUnsafeBufferPointer { (buffer) throws(CompactJWS.Problem) in try CompactJWS.validate(buffer) }
            }
            return nil
        } catch {
            return error
        }
    }

    @Test("validate accepts and refuses exactly what the initializer does, with the same problem, over mutated JWS texts")
    func agreesWithInitializer() {
        var generator = SplitMix64(seed: 0x15C0)
        let alphabet = Array("ABCxyz019-_.=+/ \n".utf8)
        var refused = 0
        for _ in 0..<5_000 {
            let header = Base64URL.encode(generator.bytes(generator.int(1...20)))
            let payload = Base64URL.encode(generator.bytes(generator.int(1...40)))
            let signature = Base64URL.encode(generator.bytes(generator.int(1...64)))
            var text = Array("\(header).\(payload).\(signature)".utf8)
            for _ in 0..<generator.int(0...3) where !text.isEmpty {
                switch generator.below(3) {
                case 0: text[generator.below(text.count)] = alphabet[generator.below(alphabet.count)]
                case 1: text.remove(at: generator.below(text.count))
                default: text.insert(alphabet[generator.below(alphabet.count)], at: generator.below(text.count + 1))
                }
            }
            let expected = Self.outcome(text, decoding: true)
            #expect(Self.outcome(text, decoding: false) == expected, "\(String(decoding: text, as: UTF8.self))")
            if expected != nil { refused += 1 }
        }
        // Both kinds of case were exercised.
        #expect(refused > 500 && refused < 4_500)
    }

    /// The table-driven pass's verdict and the syntax check's outcome for `text`, beside the
    /// byte-by-byte reference's problem.
    static func verdicts(_ text: [UInt8]) -> (table: Bool, validate: CompactJWS.Problem?, reference: CompactJWS.Problem?) {
        text.withUnsafeBufferPointer { buffer in
            (CompactJWS.isWellFormed(buffer), outcome(text, decoding: false), CompactJWS.firstProblem(buffer))
        }
    }

    @Test("The table-driven pass agrees with the byte-by-byte check on random and mutated texts: same verdict, same problem")
    func tableAgreesWithReference() {
        var generator = SplitMix64(seed: 0x7AB1E)
        // Bytes near the alphabet's edges, the separators and padding, whitespace, controls and non-ASCII.
        let edges = Array("AZaz09-_.=+/@[`{ \n\t".utf8) + [0x00, 0x7F, 0x80, 0xC3, 0xFF]
        var accepted = 0, refused = 0
        func check(_ text: [UInt8]) {
            let (table, validate, reference) = Self.verdicts(text)
            #expect(table == (reference == nil), "\(text)")
            #expect(validate == reference, "\(text)")
            if table { accepted += 1 } else { refused += 1 }
        }
        for _ in 0..<20_000 {
            // A well-formed JWS of random segment lengths (every length mod 4), then zero to
            // three bytes replaced, removed or inserted.
            let lengths = (generator.int(0...8), generator.int(0...70), generator.int(0...66))
            let header = Base64URL.encode(generator.bytes(lengths.0))
            let payload = Base64URL.encode(generator.bytes(lengths.1))
            let signature = Base64URL.encode(generator.bytes(lengths.2))
            var text = Array("\(header).\(payload).\(signature)".utf8)
            for _ in 0..<generator.int(0...3) where !text.isEmpty {
                let byte = generator.chance(0.5) ? edges[generator.below(edges.count)] : UInt8(truncatingIfNeeded: generator.next())
                switch generator.below(3) {
                case 0: text[generator.below(text.count)] = byte
                case 1: text.remove(at: generator.below(text.count))
                default: text.insert(byte, at: generator.below(text.count + 1))
                }
            }
            check(text)
            // Random bytes from the alphabet's edges and the separators, of any length.
            check((0..<generator.int(0...24)).map { _ in edges[generator.below(edges.count)] })
        }
        // Every byte value in each segment's first and last place.
        let base = Array("eyJh.e30.QUJD".utf8)
        for byte in UInt8.min...UInt8.max {
            for position in [0, 3, 4, 7, 8, 12] {
                var text = base
                text[position] = byte
                check(text)
            }
        }
        // Both verdicts were exercised, often.
        #expect(accepted > 5_000 && refused > 5_000)
    }
}
