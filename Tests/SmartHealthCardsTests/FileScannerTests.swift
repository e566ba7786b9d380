import Foundation
import Testing
import TestSupport
@testable import SmartHealthCards

/// `SHCFileScanner` is a shortcut for files in their usual shape: whatever it reads must be what
/// FHIRCore's tape reads, the same cards or the same error.
@Suite struct FileScannerTests {
    static let jws = InputTests.jws
    /// The pieces files are made of: the usual shape's tokens, and what breaks or bends it.
    static let tokens: [String] = [
        "{", "}", "[", "]", ",", ":", " ", "\n", "\t", "\r\n", "\"verifiableCredential\"", "\"" + jws + "\"",
        // The same card with its first character escaped: a valid JSON string the tape unescapes.
        "\"\\u0065" + jws.dropFirst() + "\"", "\"" + jws + "=\"", "\"" + jws.prefix(40) + "\\\"" + jws.dropFirst(40) + "\"",
        "\"a.b.c\"", "\"\"", "null", "1", "\"resourceType\"", "\"Parameters\"", "\u{FEFF}", "\\", "\u{0B}", "\"x\u{01}y\"", "é",
    ]

    /// The usual file of `count` copies of the card, tokens separated by random JSON whitespace.
    static func file(_ count: Int, _ random: inout SplitMix64) -> [String] {
        func space() -> [String] { random.chance(0.3) ? [[" ", "\n", "\t", "\r\n", "  \n "][random.below(5)]] : [] }
        var tokens = space() + ["{"] + space() + ["\"verifiableCredential\""] + space() + [":"] + space() + ["["] + space()
        for index in 0..<count {
            if index > 0 { tokens += space() + [","] + space() }
            tokens.append("\"" + jws + "\"")
        }
        return tokens + space() + ["]"] + space() + ["}"] + space()
    }

    /// Both ways of reading `bytes`: the cards, or the error.
    static func readings(_ bytes: [UInt8]) -> (scanned: Result<[SHCInput.Card], SHCInputError>, taped: Result<[SHCInput.Card], SHCInputError>) {
        (Result { () throws(SHCInputError) in try SHCInput.parse(bytes, scansFiles: true) },
         Result { () throws(SHCInputError) in try SHCInput.parse(bytes, scansFiles: false) })
    }

    @Test("Files in the usual shape, with random whitespace, are read as the tape reads them, on one core or several")
    func usualFiles() throws {
        var random = SplitMix64(seed: 0x5CA4)
        for count in [1, 2, 7, 511, 512, 1_300] {
            let bytes = Array(Self.file(count, &random).joined().utf8)
            let (scanned, taped) = Self.readings(bytes)
            #expect(scanned == taped)
            #expect(try scanned.get().count == count)
            #expect(bytes.withUnsafeBufferPointer { SHCFileScanner.credentialRanges(in: $0) }?.count == count)
        }
    }

    @Test("Files one to three tokens away from the usual shape give the tape's cards or its error (random mutations)")
    func mutatedFiles() {
        var random = SplitMix64(seed: 0x5CA5)
        var scannedCards = 0
        for round in 0..<1_500 {
            let count = round % 100 == 0 ? random.int(512...640) : random.int(1...4)
            var tokens = Self.file(count, &random)
            for _ in 0..<random.int(1...3) {
                let position = random.below(tokens.count + 1)
                let token = Self.tokens[random.below(Self.tokens.count)]
                switch random.below(3) {
                case 0: tokens.insert(token, at: position)
                case 1: if position < tokens.count { tokens.remove(at: position) }
                default: if position < tokens.count { tokens[position] = token }
                }
            }
            let bytes = Array(tokens.joined().utf8)
            let (scanned, taped) = Self.readings(bytes)
            #expect(scanned == taped, "round \(round)")
            if bytes.withUnsafeBufferPointer({ SHCFileScanner.credentialRanges(in: $0) }) != nil { scannedCards += 1 }
        }
        // The mutations keep some files in the scanner's shape (with strings it must leave to the tape).
        #expect(scannedCards > 30)
    }

    @Test("The scanner finds the strings of the usual shape only")
    func shapes() {
        func ranges(_ text: String) -> [Range<Int>]? {
            Array(text.utf8).withUnsafeBufferPointer { SHCFileScanner.credentialRanges(in: $0) }?.map { $0.start..<$0.end }
        }
        #expect(ranges(#"{"verifiableCredential":["a.b.c"]}"#) == [26..<31])
        #expect(ranges(" {\n \"verifiableCredential\" : [ \"x\" , \"\" ] }\r\n") == [32..<33, 38..<38])
        for text in [#"{"verifiableCredential":[]}"#, #"{"verifiableCredential":["a",]}"#, #"{"verifiableCredential":["a"]}x"#,
                     #"{"verifiableCredential":["a"],"x":1}"#, #"{"verifiableCredentials":["a"]}"#, #"{"verifiableCredential":"a"}"#,
                     #"{"verifiableCredential":["a"]"#, #"{"verifiableCredential":["a"#, "\u{0B}{\"verifiableCredential\":[\"a\"]}",
                     #"[{"verifiableCredential":["a"]}]"#, #"{"verifiableCredential":["a" "b"]}"#, ""] {
            #expect(ranges(text) == nil, "\(text)")
        }
    }
}
