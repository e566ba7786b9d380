@testable import FhirBlocksServer
import Testing

/// The byte checks a Bulk Data export makes on each stored resource (`ExportVisibility`): the
/// one that says a resource cannot hold security labels (no backslash, no `security`) must say
/// so exactly when a plain scan of the bytes does, wherever the word falls (its 16-byte blocks,
/// the tail after them, the ends), and the line-feed check likewise.
@Suite struct ExportVisibilityTests {
    /// The definition: a backslash, or the eight bytes `security`, anywhere.
    static func plainScan(_ bytes: [UInt8]) -> Bool {
        let word = Array("security".utf8)
        if bytes.contains(UInt8(ascii: "\\")) { return true }
        guard bytes.count >= word.count else { return false }
        return (0...(bytes.count - word.count)).contains { Array(bytes[$0..<($0 + word.count)]) == word }
    }

    @Test func securityOrBackslashIsFoundWhereverItIs() {
        let filler = Array(#"{"resourceType":"Observation","status":"final","system":"sys","display":"y s"}"#.utf8)
        var cases: [[UInt8]] = [[], Array("security".utf8), Array("securit".utf8), Array("ecurity".utf8), Array("securitY".utf8), Array(#"\"#.utf8)]
        for length in [0, 1, 7, 8, 15, 16, 22, 23, 24, 31, 40, 64, filler.count] {
            let base = Array(filler.prefix(length))
            cases.append(base)
            for position in 0...base.count {
                cases.append(Array(base[..<position]) + Array("security".utf8) + Array(base[position...]))
                cases.append(Array(base[..<position]) + Array("securit".utf8) + Array(base[position...]))
                cases.append(Array(base[..<position]) + [UInt8(ascii: "\\")] + Array(base[position...]))
                cases.append(Array(base[..<position]) + Array("sssecurityy".utf8) + Array(base[position...]))
            }
        }
        for bytes in cases {
            #expect(ExportVisibility.mayHoldSecurityMember(bytes) == Self.plainScan(bytes), "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(cases.contains { Self.plainScan($0) } && cases.contains { !Self.plainScan($0) })
    }

    @Test func lineFeedsAreFound() {
        #expect(!ExportVisibility.containsLineFeed([]))
        #expect(!ExportVisibility.containsLineFeed(Array(#"{"a":"b\nc"}"#.utf8)))
        #expect(ExportVisibility.containsLineFeed(Array("{\"a\":\n1}".utf8)))
        #expect(ExportVisibility.containsLineFeed(Array("\n".utf8)))
        #expect(ExportVisibility.containsLineFeed(Array("{}\n".utf8)))
    }
}
