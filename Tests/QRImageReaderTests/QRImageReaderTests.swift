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

    /// A PNG whose header claims `width` × `height` grey pixels, with one IDAT of a few zeros:
    /// a stand-in for an image bomb (a small file that would decode to gigabytes).
    static func claimedPNG(width: UInt32, height: UInt32) -> [UInt8] {
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
            }
            return ~crc
        }
        func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 0, 0, 0, 0]   // 8-bit greyscale
        let zlibZeros: [UInt8] = [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlibZeros) + chunk("IEND", [])
    }

    @Test("An image whose header claims more than 16 megapixels is refused before it is decoded")
    func imageBomb() throws {
        for (width, height) in [(20_000, 20_000), (4_001, 4_000), (12_000, 10)] as [(UInt32, UInt32)] {
            let file = temporaryFile("bomb.png")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(Self.claimedPNG(width: width, height: height)).write(to: file)
            #expect(throws: QRImageReader.Failure.imageTooLarge(path: file.path)) { try QRImageReader.texts(inImageAt: file) }
        }
        // Within the limits the same kind of file is decoded (and found unreadable or empty), not refused.
        let small = temporaryFile("small.png")
        defer { try? FileManager.default.removeItem(at: small) }
        try Data(Self.claimedPNG(width: 64, height: 64)).write(to: small)
        do {
            #expect(try QRImageReader.texts(inImageAt: small).isEmpty)
        } catch {
            #expect(error != .imageTooLarge(path: small.path))
        }
    }
}
