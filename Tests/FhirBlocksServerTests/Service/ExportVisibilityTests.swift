@testable import FhirBlocksServer
import FhirBlocksStore
import Testing

/// The byte checks a Bulk Data export makes on each stored resource (`ExportVisibility`): the
/// one that says a resource cannot hold security labels (no backslash, no `security`) must say
/// so exactly when a plain scan of the bytes does, wherever the word falls (its 16-byte blocks,
/// the tail after them, the ends), and the line-feed check likewise; and the chunks the job's
/// lines are gathered in (`FileChunks`).
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

    /// The checks of bytes in memory (a page's lines, `ResourceLines`) decide as those of arrays
    /// and the read path's do, and a line appended with its line feed already makes the same
    /// chunks as one appended without.
    @Test func checksOfBytesInMemoryMatchTheArrayOnes() {
        let texts = ["", " ", "{", "}", "{}", " {} ", "\t{\"a\":1}\r\n", "[]", "{\"a\":1", "\"{}\"", "{ }x", "x{}", "\n{}\n", "{\"s\":\"security\"}"]
        for text in texts {
            let bytes = Array(text.utf8)
            // Delimited: two bytes at least, `{` first and `}` last once JSON whitespace is dropped from both ends.
            let trimmed = Array(bytes.drop(while: { " \n\r\t".utf8.contains($0) }).reversed().drop(while: { " \n\r\t".utf8.contains($0) }))
            let delimited = trimmed.count >= 2 && trimmed.last == UInt8(ascii: "{") && trimmed.first == UInt8(ascii: "}")
            #expect(bytes.withUnsafeBytes { FHIRController.isDelimitedObject($0) } == delimited, "\(text)")
            #expect(bytes.withUnsafeBytes { ExportVisibility.containsLineFeed($0) } == bytes.contains(UInt8(ascii: "\n")), "\(text)")
            #expect(bytes.withUnsafeBytes { ExportVisibility.mayHoldSecurityMember($0) } == Self.plainScan(bytes), "\(text)")
        }
        var plain = FileChunks(jobID: "job"), terminated = FileChunks(jobID: "job")
        var full = 0
        for index in 0..<60 {
            let type = index % 3 == 0 ? "Condition" : "Observation"
            let line = Array(#"{"id":"\#(index)","pad":"\#(String(repeating: "x", count: BulkExportRunner.chunkSize / 25 + index))"}"#.utf8)
            let appended = plain.append(line, type: type)
            let again = (line + [UInt8(ascii: "\n")]).withUnsafeBytes { terminated.append(terminatedLine: $0, type: type) }
            #expect(again == appended)
            if appended != nil { full += 1 }
        }
        #expect(full > 0)
        #expect(plain.drain() == terminated.drain())
    }

    /// The chunks of interleaved types: each type's chunks numbered from 0, holding its lines in
    /// the order appended, each full one at least `chunkSize` bytes, the partly filled ones drained.
    @Test func fileChunksKeepEachTypesLinesInOrder() {
        var chunks = FileChunks(jobID: "job")
        var stored: [ExportChunk] = []
        var expected: [String: [UInt8]] = [:]
        let types = ["Observation", "Condition", "Observation", "Observation", "Procedure", "Condition"]
        for index in 0..<120 {
            let type = types[index % types.count]
            let line = Array(#"{"id":"\#(index)","pad":"\#(String(repeating: "x", count: BulkExportRunner.chunkSize / 12 + index))"}"#.utf8)
            expected[type, default: []] += line + [UInt8(ascii: "\n")]
            if let chunk = chunks.append(line, type: type) {
                #expect(chunk.bytes.count >= BulkExportRunner.chunkSize)
                stored.append(chunk)
            }
        }
        stored += chunks.drain()
        #expect(chunks.drain().isEmpty)
        for (type, bytes) in expected {
            let own = stored.filter { $0.type == type }
            #expect(own.map(\.sequence) == Array(0..<own.count))
            #expect(own.flatMap(\.bytes) == bytes)
            #expect(own.map(\.lineCount).reduce(0, +) == bytes.count(where: { $0 == UInt8(ascii: "\n") }))
        }
        #expect(stored.count > expected.count)
    }

    /// Pages of lines appended at once (`FileChunks.append(page:type:keep:)`, what a job of one
    /// type does) make the same files as their kept lines appended one by one: pages kept whole,
    /// into an empty buffer (taken as they are) or after other lines, pages with lines left out
    /// at the start, the middle and the end, pages with none kept, and empty pages, of two types
    /// interleaved; each full chunk at least `chunkSize` bytes, numbered from 0 in each file.
    @Test func pagesAppendedAtOnceMakeTheSameFilesAsTheirLines() {
        var byPage = FileChunks(jobID: "job"), byLine = FileChunks(jobID: "job")
        var pageChunks: [ExportChunk] = [], lineChunks: [ExportChunk] = []
        var generator = SystemRandomNumberGenerator()
        var number = 0
        // Whether line `number` is kept, by the page's pattern.
        let patterns: [(Int, Int) -> Bool] = [
            { _, _ in true }, { _, _ in false }, { index, _ in index != 0 }, { index, count in index != count - 1 },
            { index, _ in index % 3 != 1 }, { index, count in index == count / 2 },
        ]
        for round in 0..<80 {
            let type = round % 5 == 4 ? "Condition" : "Observation"
            let count = round % 7 == 6 ? 0 : Int.random(in: 1...40, using: &generator)
            let pattern = patterns[round % patterns.count]
            var page = ResourceLines()
            var keptLines: [[UInt8]] = []
            for index in 0..<count {
                number += 1
                let pad = String(repeating: "x", count: Int.random(in: 0...(BulkExportRunner.chunkSize / 12), using: &generator))
                let json = Array(#"{"id":"\#(number)","keep":\#(pattern(index, count)),"pad":"\#(pad)"}"#.utf8)
                page.append(json)
                if pattern(index, count) { keptLines.append(json) }
            }
            let appended = byPage.append(page: page, type: type) { json in
                String(decoding: json, as: UTF8.self).contains(#""keep":true"#)
            }
            #expect(appended.kept == keptLines.count)
            pageChunks += appended.full
            for line in keptLines {
                if let chunk = byLine.append(line, type: type) { lineChunks.append(chunk) }
            }
        }
        pageChunks += byPage.drain()
        lineChunks += byLine.drain()
        #expect(pageChunks.allSatisfy { !$0.bytes.isEmpty })
        for type in ["Observation", "Condition"] {
            let pages = pageChunks.filter { $0.type == type }, lines = lineChunks.filter { $0.type == type }
            #expect(pages.map(\.sequence) == Array(0..<pages.count))
            #expect(pages.dropLast().allSatisfy { $0.bytes.count >= BulkExportRunner.chunkSize })
            #expect(pages.flatMap(\.bytes) == lines.flatMap(\.bytes))
            #expect(pages.map(\.lineCount).reduce(0, +) == lines.map(\.lineCount).reduce(0, +))
            #expect(pages.allSatisfy { $0.lineCount == $0.bytes.count(where: { $0 == UInt8(ascii: "\n") }) })
            #expect(pages.count > 1)
        }
    }
}
