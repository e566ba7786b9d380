import CommonSupport
import Testing
import TestSupport

@Suite("application/x-www-form-urlencoded")
struct FormURLEncodingTests {
    @Test("Random fields round-trip through encoding, which leaves only its safe bytes unescaped")
    func roundTrip() throws {
        var generator = SplitMix64(seed: 0xF0E4)
        let alphabet = Array("aZ09-._*~ +&=%/?é\u{1F600}\n".unicodeScalars)
        for _ in 0..<500 {
            let count = generator.below(6)
            var fields: [(name: String, value: String)] = []
            for index in 0..<count {
                let value = String(String.UnicodeScalarView((0..<generator.below(12)).map { _ in alphabet[generator.below(alphabet.count)] }))
                fields.append((name: "f\(index)" + value.prefix(2), value: value))
            }
            let encoded = FormURLEncoding.encode(fields)
            #expect(encoded.allSatisfy { byte in
                byte < 0x80 && !Array(" /?~\n".utf8).contains(byte)
            })
            let decoded = try FormURLEncoding.fields(encoded)
            #expect(decoded.map(\.name) == fields.map(\.name))
            #expect(decoded.map(\.value) == fields.map(\.value))
        }
    }

    @Test("Random text, non-ASCII included, percent-encodes to unreserved ASCII and %XX only and decodes back")
    func percentEncodedRoundTrip() throws {
        var generator = SplitMix64(seed: 0xF0E6)
        let alphabet = Array("aZ09-._~*+ &=%/?#é\u{00A0}\u{1F600}\u{0000}\n日".unicodeScalars)
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let hexDigits = Set("0123456789ABCDEF".utf8)
        for _ in 0..<1_000 {
            let text = String(String.UnicodeScalarView((0..<generator.below(16)).map { _ in alphabet[generator.below(alphabet.count)] }))
            let encoded = Array(FormURLEncoding.percentEncoded(text).utf8)
            var index = 0
            while index < encoded.count {
                if encoded[index] == UInt8(ascii: "%") {
                    #expect(index + 2 < encoded.count && hexDigits.contains(encoded[index + 1]) && hexDigits.contains(encoded[index + 2]))
                    index += 3
                } else {
                    #expect(unreserved.contains(encoded[index]))
                    index += 1
                }
            }
            #expect(try FormURLEncoding.decode(encoded[...], plusIsSpace: false) == text)
            #expect(try FormURLEncoding.decode(encoded[...], plusIsSpace: true) == text)
        }
        #expect(FormURLEncoding.percentEncoded("a b+c/d?e=f&g~h") == "a%20b%2Bc%2Fd%3Fe%3Df%26g~h")
        #expect(FormURLEncoding.percentEncoded("Granted café") == "Granted%20caf%C3%A9")
    }

    @Test("Random bytes decode or are refused with a typed failure, never a crash")
    func randomBytes() {
        var generator = SplitMix64(seed: 0xF0E5)
        let alphabet = Array("a=&%+2F9gé".utf8) + [0xFF]
        for _ in 0..<2_000 {
            let body = (0..<generator.below(24)).map { _ in alphabet[generator.below(alphabet.count)] }
            let repeatsAllowed = generator.below(2) == 0
            do throws(FormURLEncoding.Failure) {
                let fields = try FormURLEncoding.fields(body, repeatsAllowed: repeatsAllowed)
                #expect(fields.count <= body.count)
            } catch .repeatedName(let name) {
                #expect(!repeatsAllowed && !name.contains("&"))
            } catch {
                #expect(error == .badPercentEscape || error == .invalidUTF8)
            }
        }
    }

    @Test("Escapes, plus signs, empty pieces and pieces without a value")
    func forms() throws {
        let fields = try FormURLEncoding.fields(Array("a=1+2&&b&c=%7e%C3%A9".utf8))
        #expect(fields.map(\.name) == ["a", "b", "c"])
        #expect(fields.map(\.value) == ["1 2", "", "~é"])
        #expect(try FormURLEncoding.decode(ArraySlice("a+b".utf8), plusIsSpace: false) == "a+b")
        #expect(String(decoding: FormURLEncoding.encode([(name: "q", value: "a b/é")]), as: UTF8.self) == "q=a+b%2F%C3%A9")
    }

    @Test("Bad escapes, invalid UTF-8 and repeated names are refused")
    func refusals() {
        #expect(throws: FormURLEncoding.Failure.badPercentEscape) { try FormURLEncoding.fields(Array("a=%4".utf8)) }
        #expect(throws: FormURLEncoding.Failure.badPercentEscape) { try FormURLEncoding.fields(Array("a=%zz".utf8)) }
        #expect(throws: FormURLEncoding.Failure.invalidUTF8) { try FormURLEncoding.fields(Array("a=%FF".utf8)) }
        #expect(throws: FormURLEncoding.Failure.repeatedName("a")) { try FormURLEncoding.fields(Array("a=1&a=2".utf8)) }
        #expect((try? FormURLEncoding.fields(Array("a=1&a=2".utf8), repeatsAllowed: true))?.count == 2)
    }
}
