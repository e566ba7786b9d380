import Foundation
@testable import QRCode
import TestSupport

/// Where the tests find shared data, the peer decoder and scratch space.
enum QRTestSupport {
    /// The repository root: three levels above this file (Tests/QRCodeTests/…).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The committed vectors (`Tests/Vectors`, see TestData).
    static let sharedDirectory: URL? = TestData.vectors

    /// The official SMART Health Cards examples (github.com/smart-on-fhir/health-cards, docs/examples).
    static let specExamples: URL? = sharedDirectory.map {
        $0.appendingPathComponent("vectors/shc/spec-examples")
    }

    static let specExamplesMissing =
        "SMART Health Cards examples not found: set OPENHEALTHKIT_SHARED or put shared/ beside the repository "
        + "(they come from github.com/smart-on-fhir/health-cards, docs/examples)"

    /// Rule 47: each JWS character c becomes the two digits of ord(c) − 45.
    static func shcDigits(jws: String) -> String {
        var digits = ""
        digits.reserveCapacity(jws.utf8.count * 2)
        for byte in jws.utf8 {
            let value = Int(byte) - 45
            digits += value < 10 ? "0\(value)" : "\(value)"
        }
        return digits
    }

    /// A JWS-like string of `count` characters from the base64url alphabet and `.`.
    static func fakeJWS(count: Int, using generator: inout SeededGenerator) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
        return String((0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// The matrix as rows of "#" (dark) and "." (light).
    static func rows(_ code: QRCode) -> [String] {
        (0..<code.size).map { y in String((0..<code.size).map { x in code[x, y] ? "#" : "." }) }
    }

    /// CRC-32 of the modules packed row-major, 8 to a byte, most significant bit first (the same
    /// packing as the fixture generator's).
    static func matrixCRC(_ code: QRCode) -> UInt32 {
        var packed: [UInt8] = []
        var accumulator: UInt8 = 0
        var bits = 0
        for y in 0..<code.size {
            for x in 0..<code.size {
                accumulator = accumulator << 1 | (code[x, y] ? 1 : 0)
                bits += 1
                if bits == 8 {
                    packed.append(accumulator)
                    accumulator = 0
                    bits = 0
                }
            }
        }
        if bits > 0 { packed.append(accumulator << UInt8(8 - bits)) }
        return referenceCRC32(packed)
    }

    /// A bit-at-a-time CRC-32 (no table), independent of the module's table-driven one.
    static func referenceCRC32<C: Collection<UInt8>>(_ bytes: C) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }

    /// The modules of an official example SVG (node-qrcode output: a white background path and
    /// one stroked path of "M x y.5 h n m dx dy" runs, 4-module margin).
    static func officialSVGMatrix(_ svg: String) -> [[Bool]]? {
        guard let viewBoxRange = svg.range(of: "viewBox=\"0 0 "),
              let dimension = Int(svg[viewBoxRange.upperBound...].prefix { $0.isNumber }),
              let pathStart = svg.range(of: "<path stroke=\"#000000\" d=\"") else { return nil }
        let n = dimension - 8
        let d = svg[pathStart.upperBound...].prefix { $0 != "\"" }
        var matrix = [[Bool]](repeating: [Bool](repeating: false, count: n), count: n)
        var x = 0.0
        var y = 0.0
        let scanner = Scanner(string: String(d))
        scanner.charactersToBeSkipped = CharacterSet(charactersIn: " ,")
        while !scanner.isAtEnd {
            guard let command = scanner.scanCharacter() else { return nil }
            switch command {
            case "M", "m":
                guard let a = scanner.scanDouble(), let b = scanner.scanDouble() else { return nil }
                if command == "M" { x = a; y = b } else { x += a; y += b }
            case "h":
                guard let w = scanner.scanDouble() else { return nil }
                let row = Int(y - 0.5) - 4
                for i in 0..<Int(w) {
                    let column = Int(x) - 4 + i
                    guard row >= 0, row < n, column >= 0, column < n else { return nil }
                    matrix[row][column] = true
                }
                x += w
            default:
                return nil
            }
        }
        return matrix
    }

    /// The mask of a matrix, read from its first copy of the format information.
    static func formatMask(_ matrix: [[Bool]]) -> (level: Int, mask: Int) {
        var bits = 0
        func bit(_ i: Int, _ dark: Bool) { if dark { bits |= 1 << i } }
        for i in 0...5 { bit(i, matrix[i][8]) }
        bit(6, matrix[7][8])
        bit(7, matrix[8][8])
        bit(8, matrix[8][7])
        for i in 9..<15 { bit(i, matrix[8][14 - i]) }
        let data = (bits ^ 0x5412) >> 10
        return (data >> 3, data & 7)
    }
}

/// SplitMix64: a small deterministic generator so property tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
