import HealthWebApp
import NIOCore
import Testing
import TestSupport

@Suite("Multipart uploads and pasted card text")
struct MultipartFormTests {
    @Test("a browser's multipart body gives its fields and files (quoted names, paths stripped, empty file inputs left out)")
    func parse() throws {
        let body = MultipartBody().field("csrf", "token").field("shc", "shc:/56\r\n76")
            .file("files", filename: "C:\\\\Users\\\\me\\\\a;b \\\"x\\\".json", Array("{}".utf8))
            .file("files", filename: "b.json", [0, 1, 2, 255]).file("image", filename: "", []).closed
        let form = try MultipartForm(ByteBuffer(bytes: body.bytes), boundary: body.boundary)
        #expect(form["csrf"] == "token")
        #expect(form["shc"] == "shc:/56\r\n76")
        #expect(form.files(named: "files").map(\.filename) == ["a;b \"x\".json", "b.json"])
        #expect(form.files(named: "files").map(\.bytes) == [Array("{}".utf8), [0, 1, 2, 255]])
        #expect(form.files(named: "image").isEmpty)
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=\"abc def\"") == "abc def")
        #expect(MultipartForm.boundary(contentType: "Multipart/Form-Data;boundary=xyz") == "xyz")
        #expect(MultipartForm.boundary(contentType: "application/x-www-form-urlencoded") == nil)
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=") == nil)
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=\(String(repeating: "a", count: 71))") == nil)
    }

    @Test("broken bodies give typed errors: truncated, bad syntax, a part without a name")
    func errors() throws {
        let open = MultipartBody().field("csrf", "token")
        #expect(throws: MultipartFormError.truncated) { try MultipartForm(ByteBuffer(bytes: open.bytes), boundary: open.boundary) }
        let badHeader = Array("--b\r\nNo Colon Here\r\n\r\nx\r\n--b--\r\n".utf8)
        #expect(throws: MultipartFormError.malformed) { try MultipartForm(ByteBuffer(bytes: badHeader), boundary: "b") }
        let unnamed = Array("--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n".utf8)
        #expect(throws: MultipartFormError.unnamedPart) { try MultipartForm(ByteBuffer(bytes: unnamed), boundary: "b") }
        #expect(throws: MultipartFormError.missingBoundary) { try MultipartForm(ByteBuffer(), boundary: "") }
        // A header name with a byte over 0x7F traps MultipartKit 4.7.1's parser: refused before it.
        let highByte = Array("--b\r\nX".utf8) + [0xC3, 0xA9] + Array(": 1\r\n\r\nx\r\n--b--\r\n".utf8)
        #expect(throws: MultipartFormError.malformed) { try MultipartForm(ByteBuffer(bytes: highByte), boundary: "b") }
        let utf8Value = Array("--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"".utf8) + [0xC3, 0xA9]
            + Array(".json\"\r\n\r\nx\r\n--b--\r\n".utf8)
        #expect(try MultipartForm(ByteBuffer(bytes: utf8Value), boundary: "b").files.first?.filename == "é.json")
    }

    @Test("random bytes, and random cuts and flips of a real body, never crash: a form or a typed error")
    func fuzz() {
        var random = SplitMix64(seed: 0x5EED_17)
        let real = MultipartBody().field("csrf", "token").file("files", filename: "a.json", Array("{\"resourceType\":\"Patient\"}".utf8)).closed
        var outcomes: [String: Int] = [:]
        for round in 0..<3_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<random.int(0...300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if round % 4 == 0 { bytes = Array("--\(real.boundary)\r\n".utf8) + bytes }
            } else {
                bytes = Array(real.bytes.prefix(random.int(0...real.bytes.count)))
                for _ in 0..<random.int(0...3) where !bytes.isEmpty {
                    bytes[random.int(0...(bytes.count - 1))] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            do {
                let form = try MultipartForm(ByteBuffer(bytes: bytes), boundary: real.boundary)
                outcomes["form", default: 0] += 1
                #expect(form.files.count <= MultipartForm.maximumParts)
            } catch {
                outcomes["\(error)", default: 0] += 1
            }
        }
        #expect(outcomes.count >= 3, "\(outcomes)")
    }

    @Test("pasted text: shc:/ chunks (any case, any spacing) and JWS are tidied one per line; anything else is a typed error")
    func pasted() throws {
        #expect(try PastedCardText.normalize("  SHC:/1/2/5676 \n\n shc:/2/2/5677\t") == Array("shc:/1/2/5676\nshc:/2/2/5677".utf8))
        #expect(try PastedCardText.normalize("eyJh.eyJi.c2ln") == Array("eyJh.eyJi.c2ln".utf8))
        #expect(throws: PastedCardTextError.empty) { try PastedCardText.normalize(" \n\t ") }
        #expect(throws: PastedCardTextError.notCardText(line: 2)) { try PastedCardText.normalize("shc:/56\nhello") }
        #expect(throws: PastedCardTextError.tooLong) { try PastedCardText.normalize(String(repeating: "shc:/5 ", count: 60_000)) }
        var random = SplitMix64(seed: 99)
        let alphabet = Array("shc:/0123456789 \n\t.abcXYZ-_=\u{0}é")
        for _ in 0..<3_000 {
            let text = String((0..<random.int(0...80)).map { _ in alphabet[random.int(0...(alphabet.count - 1))] })
            do {
                let bytes = try PastedCardText.normalize(text)
                #expect(!bytes.isEmpty)
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}
