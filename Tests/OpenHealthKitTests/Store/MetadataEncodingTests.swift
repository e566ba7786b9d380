import Crypto
import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

/// The save path's shortcuts write the same bytes as the general code they stand in for: the
/// direct metadata encoding (what `JSONSerialization` writes, sorted keys and escapes) and the
/// index hashes (from a keyed HMAC copied, not keyed again), so stores written before and after
/// read and match the same.
@Suite("Stored metadata and index hashes: the fast forms equal the general ones")
struct MetadataEncodingTests {
    /// `MetadataCodec.encode` as it was: JSONSerialization of the typed JSON, keys sorted.
    static func general(_ values: [String: MetadataCodec.Value]) throws -> Data {
        let json: [String: Any] = values.mapValues { value -> Any in
            switch value {
            case .string(let text): return ["s": text]
            case .integer(let number): return ["i": number]
            case .bool(let flag): return ["b": flag]
            case .double(let number): return ["d": number]
            case .date(let date): return ["t": date.timeIntervalSinceReferenceDate]
            case .quantity(let number, let unit): return ["q": number, "u": unit]
            }
        }
        return try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
    }

    @Test("Random text and whole-number metadata encodes to JSONSerialization's exact bytes, and decodes back")
    func plainEncodingMatches() throws {
        var random = SplitMix64(seed: 36)
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let textPieces = ["a", "Z", "0", "/", "\"", "\\", " ", "é", "😀", "\u{7F}", "-", ":", "<>", "apple-health-export:", "\u{1}", "\n"]
        var plainCount = 0
        for _ in 0..<2_000 {
            var values: [String: MetadataCodec.Value] = [:]
            for _ in 0..<random.int(1...5) {
                var key = String((0..<random.int(1...12)).map { _ in letters[random.below(letters.count)] })
                if random.chance(0.1) { key += ["_", "1", "10", "é", "Key9"][random.below(5)] }
                if random.chance(0.5) {
                    values[key] = .string((0..<random.below(8)).map { _ in textPieces[random.below(textPieces.count)] }.joined())
                } else if random.chance(0.8) {
                    values[key] = .integer(Int64(bitPattern: random.next()) >> random.below(64))
                } else {
                    values[key] = [.bool(true), .double(2.5), .date(Date(timeIntervalSinceReferenceDate: 1)), .quantity(3, unit: "cm")][random.below(4)]
                }
            }
            let encoded = try MetadataCodec.encode(values)
            #expect(encoded == (try Self.general(values)), "\(values)")
            #expect(try MetadataCodec.decode(encoded) == values)
            if MetadataCodec.plainEncoding(values) != nil { plainCount += 1 }
        }
        // Most of the random cases took the direct path, so it is the one compared.
        #expect(plainCount > 500)
        let imported: [String: MetadataCodec.Value] = [HKMetadataKeySyncIdentifier: .string("apple-health-export:00ff"), HKMetadataKeySyncVersion: .integer(1)]
        #expect(MetadataCodec.plainEncoding(imported) == (try Self.general(imported)))
    }

    @Test("Keys that differ only by case, control characters and other value kinds go to JSONSerialization")
    func generalCases() throws {
        #expect(MetadataCodec.plainEncoding(["Key": .string("a"), "key": .string("b")]) == nil)
        #expect(MetadataCodec.plainEncoding(["key": .string("line\nbreak")]) == nil)
        #expect(MetadataCodec.plainEncoding(["key1": .string("a")]) == nil)
        #expect(MetadataCodec.plainEncoding(["key": .double(1.5)]) == nil)
        let mixed: [String: MetadataCodec.Value] = ["Key": .string("a"), "key": .string("b\n"), "n": .double(1.5)]
        #expect(try MetadataCodec.encode(mixed) == (try Self.general(mixed)))
    }

    @Test("Index hashes are HMAC-SHA256 under the derived index key of each part's length and bytes, as before")
    func indexHashUnchanged() {
        let master = SymmetricKey(size: .bits256)
        let cipher = RecordCipher(masterKey: master)
        let indexKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Data("openhealthkit.index.v1".utf8), outputByteCount: 32)
        func expected(_ parts: [String]) -> Data {
            var hmac = HMAC<SHA256>(key: indexKey)
            for part in parts {
                let bytes = Array(part.utf8)
                withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { hmac.update(data: Array($0)) }
                hmac.update(data: bytes)
            }
            return Data(hmac.finalize().prefix(16))
        }
        #expect(cipher.indexHash("sync", "apple-health-export.Jane’s iPhone", "apple-health-export:abc") ==
            expected(["sync", "apple-health-export.Jane’s iPhone", "apple-health-export:abc"]))
        #expect(cipher.indexHash("mk", "") == expected(["mk", ""]))
        // The keyed state is copied for each hash: hashes in a row do not feed each other.
        let first = cipher.indexHash("mv", "k", "s:x")
        _ = cipher.indexHash("mv", "k", "s:y")
        #expect(cipher.indexHash("mv", "k", "s:x") == first && first == expected(["mv", "k", "s:x"]))
        // Inputs of one to several SHA-256 blocks, as an import's sync identifiers are.
        for length in [0, 1, 47, 55, 56, 63, 64, 65, 119, 120, 200, 1_000] {
            let text = String((0..<length).map { _ in "abcdefghij0123456789:é".randomElement() ?? "a" })
            #expect(cipher.indexHash("sync", "apple-health-export.Watch", text) == expected(["sync", "apple-health-export.Watch", text]))
        }
    }

    @Test("The HMAC states after the key blocks give HMAC-SHA256 for keys shorter, as long as and longer than a block")
    func hmacStatesMatchHMAC() {
        for size in [1, 16, 32, 63, 64, 65, 100, 200] {
            let key = SymmetricKey(data: (0..<size).map { _ in UInt8.random(in: 0...255) })
            let message = (0..<(size * 3)).map { _ in UInt8.random(in: 0...255) }
            var (inner, outer) = RecordCipher.hmacStates(key)
            inner.update(data: message)
            outer.update(data: Array(inner.finalize()))
            #expect(Array(outer.finalize()) == Array(HMAC<SHA256>.authenticationCode(for: message, using: key)), "key of \(size) bytes")
        }
    }
}
