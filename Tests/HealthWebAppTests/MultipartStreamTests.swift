@testable import HealthWebApp
import Foundation
import NIOCore
import Testing
import TestSupport

/// The streamed multipart reader: whatever the chunks a body arrives in, it reads the same parts
/// as the whole-body reader (MultipartKit's), keeps at most a boundary's length of a part back,
/// and refuses malformed, truncated and oversized input with a typed error, never a crash.
@Suite("Multipart stream")
struct MultipartStreamTests {
    /// A part as read: its field, file name and bytes.
    struct Part: Equatable {
        var name: String
        var filename: String?
        var bytes: [UInt8]
    }

    /// Reads `body` in chunks of the sizes `sizes` gives (cycled).
    static func read(_ body: [UInt8], boundary: String, sizes: [Int]) throws(MultipartFormError) -> [Part] {
        var stream = try MultipartStream(boundary: boundary)
        var parts: [Part] = []
        var offset = 0
        var index = 0
        while offset < body.count {
            let size = min(max(1, sizes[index % sizes.count]), body.count - offset)
            index += 1
            do {
                try stream.read(ByteBuffer(bytes: body[offset..<(offset + size)])) { (event: MultipartStream.Event) throws(Never) in
                    switch event {
                    case let .partBegins(name, filename): parts.append(Part(name: name, filename: filename, bytes: []))
                    case .bytes(let bytes): parts[parts.count - 1].bytes += bytes.readableBytesView
                    case .partEnds: break
                    }
                }
            } catch {
                switch error {
                case .form(let form): throw form
                case .handler(let never): switch never {}
                }
            }
            offset += size
        }
        try stream.finish()
        return parts
    }

    /// Bytes that are hard for a boundary search: CR, LF, hyphens and pieces of the boundary.
    static func awkwardBytes(_ random: inout SplitMix64, count: Int, boundary: String) -> [UInt8] {
        let near = Array("\r\n--\(boundary)".utf8)
        var bytes: [UInt8] = []
        while bytes.count < count {
            switch random.int(0...9) {
            case 0: bytes += near.prefix(random.int(1...(near.count - 1))) // a boundary's start, never all of it
            case 1: bytes += [0x0D, 0x0A]
            case 2: bytes.append(0x2D)
            default: bytes.append(UInt8(truncatingIfNeeded: random.next()))
            }
        }
        bytes = Array(bytes.prefix(count))
        // Pieces put together may make the whole boundary: its last byte is changed.
        while let whole = bytes.firstRange(of: near) { bytes[whole.upperBound - 1] = 0 }
        return bytes
    }

    @Test("Random forms in random chunks read the same parts as the whole-body reader (400 seeded cases)")
    func roundTrip() throws {
        var random = SplitMix64(seed: 39)
        for _ in 0..<400 {
            let boundary = "----b" + String(random.next() % 1_000_000_007, radix: 36)
            var body = MultipartBody(boundary: boundary)
            var expected: [Part] = []
            for index in 0..<random.int(0...4) {
                let value = String(decoding: Self.awkwardBytes(&random, count: random.int(0...60), boundary: boundary).map { $0 & 0x7F }, as: UTF8.self)
                body = body.field("f\(index)", value)
                expected.append(Part(name: "f\(index)", filename: nil, bytes: Array(value.utf8)))
            }
            if random.int(0...3) > 0 {
                let content = Self.awkwardBytes(&random, count: random.int(0...20_000), boundary: boundary)
                body = body.file("export", filename: "dir/export.zip", content)
                expected.append(Part(name: "export", filename: "export.zip", bytes: content))
            }
            let bytes = body.closed.bytes
            let sizes = (0..<8).map { _ in random.int(0...3) == 0 ? random.int(1...3) : random.int(1...9_000) }
            // A generated body the reference reader refuses too is not a case.
            guard let whole = try? MultipartForm(ByteBuffer(bytes: bytes), boundary: boundary) else { continue }
            let parts = try Self.read(bytes, boundary: boundary, sizes: sizes)
            #expect(parts == expected)
            #expect(parts.filter { $0.filename == nil }.allSatisfy { whole[$0.name] == String(decoding: $0.bytes, as: UTF8.self) })
            #expect(whole.files.map(\.bytes) == parts.filter { $0.filename != nil }.map(\.bytes))
        }
    }

    @Test("A body cut before its closing boundary is truncated, wherever it is cut")
    func truncated() throws {
        let body = MultipartBody().field("csrf", "t").file("export", filename: "e.zip", Array("PK\r\n--x".utf8)).closed
        let closing = Array("--\(body.boundary)--".utf8)
        let end = try #require(body.bytes.firstRange(of: closing)).upperBound
        for cut in 0..<end {
            #expect(throws: MultipartFormError.truncated) { try Self.read(Array(body.bytes.prefix(cut)), boundary: body.boundary, sizes: [7]) }
        }
        #expect(try Self.read(Array(body.bytes.prefix(end)), boundary: body.boundary, sizes: [7]).count == 2)
    }

    @Test("Oversized headers, unnamed parts, non-ASCII header names and too many parts are refused in words")
    func refusals() throws {
        let boundary = "b"
        let longHeader = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\nX-Long: \(String(repeating: "x", count: 20_000))\r\n\r\nv\r\n--b--"
        #expect(throws: MultipartFormError.malformed) { try Self.read(Array(longHeader.utf8), boundary: boundary, sizes: [1_000]) }
        let endless = "--b\r\nContent-Disposition: form-data; name=\"a\"" + String(repeating: "y", count: 20_000)
        #expect(throws: MultipartFormError.malformed) { try Self.read(Array(endless.utf8), boundary: boundary, sizes: [1_000]) }
        let unnamed = "--b\r\nContent-Type: text/plain\r\n\r\nv\r\n--b--"
        #expect(throws: MultipartFormError.unnamedPart) { try Self.read(Array(unnamed.utf8), boundary: boundary, sizes: [5]) }
        let highName = Array("--b\r\n".utf8) + [0xC3, 0xA9] + Array(": x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--b--".utf8)
        #expect(throws: MultipartFormError.malformed) { try Self.read(highName, boundary: boundary, sizes: [3]) }
        let badAfterBoundary = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--bXY"
        #expect(throws: MultipartFormError.malformed) { try Self.read(Array(badAfterBoundary.utf8), boundary: boundary, sizes: [4]) }
        let many = String(repeating: "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n", count: MultipartForm.maximumParts + 1) + "--b--"
        #expect(throws: MultipartFormError.tooManyParts) { try Self.read(Array(many.utf8), boundary: boundary, sizes: [4_096]) }
        #expect(throws: MultipartFormError.missingBoundary) { try MultipartStream(boundary: "") }
        #expect(throws: MultipartFormError.missingBoundary) { try MultipartStream(boundary: String(repeating: "b", count: 71)) }
    }

    @Test("Mutated bodies (bytes flipped, inserted, removed; 3,000 seeded cases) are read or refused with a typed error, never a crash")
    func mutations() {
        var random = SplitMix64(seed: 3_939)
        let base = MultipartBody(boundary: "q7").field("csrf", "token").field("allowOtherPerson", "yes")
            .file("export", filename: "export.zip", Self.awkwardBytes(&random, count: 3_000, boundary: "q7")).closed.bytes
        var outcomes: [String: Int] = [:]
        for _ in 0..<3_000 {
            var bytes = base
            for _ in 0..<random.int(1...6) {
                let at = random.int(0...(bytes.count - 1))
                switch random.int(0...2) {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
                default: bytes.remove(at: at)
                }
            }
            do {
                _ = try Self.read(bytes, boundary: "q7", sizes: [random.int(1...700), random.int(1...5)])
                outcomes["read", default: 0] += 1
            } catch {
                outcomes["\(error)", default: 0] += 1
            }
        }
        #expect(outcomes.values.reduce(0, +) == 3_000)
        #expect(outcomes["read", default: 0] > 0 && outcomes.count > 1, "\(outcomes)")
    }
}
