import Foundation
import Testing
@testable import QRCode

@Suite("QR renderers: SVG, PNG, terminal text")
struct QRRendererTests {
    static func sample() throws -> QRCode {
        try QRCode.smartHealthCard(numeric: "shc:/56762909524320603460292437404460312229595326546034602925407728043360")
    }

    // MARK: SVG

    @Test("the SVG has one path whose runs redraw exactly the dark modules, inside a 4-module quiet zone")
    func svg() throws {
        let code = try Self.sample()
        let svg = code.svg(moduleSize: 3)
        let dimension = code.size + 8
        #expect(svg.contains("viewBox=\"0 0 \(dimension) \(dimension)\""))
        #expect(svg.contains("width=\"\(dimension * 3)\" height=\"\(dimension * 3)\""))
        #expect(svg.components(separatedBy: "<path").count == 2)
        #expect(svg.hasPrefix("<?xml"))
        #expect(svg.hasSuffix("</svg>\n"))

        let d = try #require(svg.range(of: " d=\"").map { svg[$0.upperBound...].prefix { $0 != "\"" } })
        var drawn = Set<[Int]>()
        for subpath in d.split(separator: "z") {
            // "M{x} {y}h{w}v1h-{w}"
            let numbers = subpath.split(whereSeparator: { "Mhv -".contains($0) }).compactMap { Int($0) }
            try #require(numbers.count == 5, "subpath \(subpath)")
            #expect(numbers[2] == numbers[4] && numbers[2] > 0 && numbers[3] == 1)
            for x in numbers[0]..<(numbers[0] + numbers[2]) { drawn.insert([x - 4, numbers[1] - 4]) }
        }
        var dark = Set<[Int]>()
        for y in 0..<code.size { for x in 0..<code.size where code[x, y] { dark.insert([x, y]) } }
        #expect(drawn == dark)
        #expect(code.svg(border: 0).contains("viewBox=\"0 0 \(code.size) \(code.size)\""))
    }

    // MARK: PNG

    struct PNGImage {
        var width = 0
        var height = 0
        var pixels: [[Bool]] = []  // true = white
    }

    /// Reads the module's PNG strictly: signature, chunk CRCs (with an independent CRC), IHDR,
    /// a zlib stream of stored blocks with a correct Adler-32, filter bytes 0, 1-bit pixels.
    static func decodePNG(_ bytes: [UInt8]) throws -> PNGImage {
        struct Bad: Error { let why: String }
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw Bad(why: "signature") }
        func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        var offset = 8
        var chunks: [(String, ArraySlice<UInt8>)] = []
        while offset < bytes.count {
            let length = u32(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let data = bytes[(offset + 8)..<(offset + 8 + length)]
            let crc = u32(offset + 8 + length)
            guard UInt32(crc) == QRTestSupport.referenceCRC32(bytes[(offset + 4)..<(offset + 8 + length)]) else {
                throw Bad(why: "CRC of \(type)")
            }
            chunks.append((type, data))
            offset += 12 + length
        }
        guard chunks.map(\.0) == ["IHDR", "IDAT", "IEND"], offset == bytes.count else { throw Bad(why: "chunks \(chunks.map(\.0))") }
        let header = Array(chunks[0].1)
        var image = PNGImage()
        image.width = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        image.height = Int(header[4]) << 24 | Int(header[5]) << 16 | Int(header[6]) << 8 | Int(header[7])
        guard Array(header[8...]) == [1, 0, 0, 0, 0] else { throw Bad(why: "IHDR \(header)") }

        let zlib = Array(chunks[1].1)
        guard zlib[0] == 0x78, (Int(zlib[0]) << 8 | Int(zlib[1])) % 31 == 0 else { throw Bad(why: "zlib header") }
        var raw: [UInt8] = []
        var position = 2
        while true {
            let final = zlib[position] & 1
            guard zlib[position] >> 1 == 0 else { throw Bad(why: "not a stored block") }
            let length = Int(zlib[position + 1]) | Int(zlib[position + 2]) << 8
            let complement = Int(zlib[position + 3]) | Int(zlib[position + 4]) << 8
            guard length ^ complement == 0xFFFF else { throw Bad(why: "NLEN") }
            raw += zlib[(position + 5)..<(position + 5 + length)]
            position += 5 + length
            if final == 1 { break }
        }
        var a = 1
        var b = 0
        for byte in raw { a = (a + Int(byte)) % 65521; b = (b + a) % 65521 }
        guard position + 4 == zlib.count, Array(zlib[position...]) == [UInt8(b >> 8), UInt8(b & 0xFF), UInt8(a >> 8), UInt8(a & 0xFF)] else {
            throw Bad(why: "Adler-32")
        }
        let rowBytes = 1 + (image.width + 7) / 8
        guard raw.count == rowBytes * image.height else { throw Bad(why: "data size") }
        for y in 0..<image.height {
            guard raw[y * rowBytes] == 0 else { throw Bad(why: "filter") }
            image.pixels.append((0..<image.width).map { x in raw[y * rowBytes + 1 + x / 8] & (0x80 >> UInt8(x % 8)) != 0 })
        }
        return image
    }

    @Test("the PNG is valid (CRC-32, stored deflate, Adler-32) and every pixel is its module's colour",
          arguments: [(1, 0), (3, 4), (8, 4), (5, 1)])
    func png(moduleSize: Int, border: Int) throws {
        let code = try Self.sample()
        let image = try Self.decodePNG(code.png(moduleSize: moduleSize, border: border))
        let side = (code.size + 2 * border) * moduleSize
        #expect(image.width == side && image.height == side)
        var mismatches = 0
        for y in 0..<side {
            for x in 0..<side where image.pixels[y][x] == code[x / moduleSize - border, y / moduleSize - border] {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    @Test("a large PNG spans several stored blocks (65535 bytes each)")
    func largePNG() throws {
        let code = try QRCode.encode(segments: [.byte(String(repeating: "x", count: 2000))], errorCorrection: .low)
        #expect(code.version == 33)  // 32-L holds 1952 bytes, 33-L 2068
        let bytes = code.png(moduleSize: 10)
        let image = try Self.decodePNG(bytes)
        #expect(image.width == (code.size + 8) * 10)
        #expect(bytes.count > 65535 * 3)
    }

    @Test("CRC-32 and Adler-32 known answers")
    func checksums() {
        #expect(QRPNGWriter.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(QRPNGWriter.crc32([UInt8]()) == 0)
        #expect(QRPNGWriter.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(QRPNGWriter.adler32([]) == 1)
        // Past the 5552-byte block where the sums are reduced.
        let long = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var a = 1
        var b = 0
        for byte in long { a = (a + Int(byte)) % 65521; b = (b + a) % 65521 }
        #expect(QRPNGWriter.adler32(long) == UInt32(b << 16 | a))
        #expect(QRPNGWriter.crc32(long) == QRTestSupport.referenceCRC32(long))
        // The IEND chunk's CRC is the well-known AE 42 60 82.
        #expect(QRPNGWriter.crc32(Array("IEND".utf8)) == 0xAE42_6082)
    }

    // MARK: Terminal

    @Test("terminal text packs two module rows per line and reads back to the modules")
    func terminalText() throws {
        let code = try Self.sample()
        for (border, light) in [(4, false), (2, true), (0, false), (1, true)] {
            let text = code.terminalText(border: border, forLightBackground: light)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let dimension = code.size + 2 * border
            #expect(text.hasSuffix("\n"))
            #expect(lines.count == (dimension + 1) / 2)
            #expect(lines.allSatisfy { $0.count == dimension })
            #expect(Set(text).isSubset(of: ["▀", "▄", "█", " ", "\n"]))
            for (lineIndex, line) in lines.enumerated() {
                for (x, glyph) in line.enumerated() {
                    let top = glyph == "█" || glyph == "▀"
                    let bottom = glyph == "█" || glyph == "▄"
                    // Ink = light module on a dark terminal, dark module on a light one.
                    let y = lineIndex * 2
                    #expect(top == (code[x - border, y - border] == light))
                    if y + 1 < dimension {
                        #expect(bottom == (code[x - border, y + 1 - border] == light))
                    } else {
                        #expect(!bottom)
                    }
                }
            }
        }
        // On a dark terminal the quiet zone is lit: the first line is all full blocks.
        #expect(code.terminalText().hasPrefix(String(repeating: "█", count: code.size + 8) + "\n"))
    }
}
