import Crypto
import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

/// Kernel random bytes (``RandomBytes``): the pool behind every time-ordered UUID hands no byte out twice, across
/// refills and from many tasks at once, with a plausible distribution; AES-GCM nonces, read from the kernel one at a
/// time, are all distinct; and the byte comparisons and hex reading of the import's hot path against independent oracles.
@Suite("Random bytes from a pool: nonces, UUIDs and the import's byte comparisons")
struct RandomBytesTests {
    @Test("200,000 AES-GCM nonces and 200,000 time-ordered UUIDs from four tasks at once are all distinct, and every sealed record opens")
    func distinct() async throws {
        let cipher = RecordCipher(masterKey: SymmetricKey(size: .bits256))
        let parts = try await withThrowingTaskGroup(of: (nonces: [Data], uuids: [UUID]).self) { group in
            for task in 0..<4 {
                group.addTask {
                    var nonces: [Data] = []
                    var uuids: [UUID] = []
                    nonces.reserveCapacity(50_000)
                    uuids.reserveCapacity(50_000)
                    for index in 0..<50_000 {
                        let context = Data("\(task)-\(index)".utf8)
                        let sealed = try cipher.seal(Data([UInt8(truncatingIfNeeded: index)]), context: context)
                        // The combined form is the 12-byte nonce, the ciphertext and the 16-byte tag.
                        #expect(sealed.count == 12 + 1 + 16)
                        if index % 1_000 == 0 {
                            #expect(try cipher.open(sealed, context: context) == Data([UInt8(truncatingIfNeeded: index)]))
                        }
                        nonces.append(sealed.prefix(12))
                        uuids.append(UUID.timeOrdered())
                    }
                    return (nonces, uuids)
                }
            }
            var all: [(nonces: [Data], uuids: [UUID])] = []
            for try await part in group { all.append(part) }
            return all
        }
        let nonces = parts.flatMap(\.nonces)
        let uuids = parts.flatMap(\.uuids)
        #expect(nonces.count == 200_000 && uuids.count == 200_000)
        #expect(Set(nonces).count == 200_000)
        #expect(Set(uuids).count == 200_000)
        // The random parts of the UUIDs (bytes 6-15 without the version and variant bits) are distinct too.
        let randomParts = Set(uuids.map { uuid in
            withUnsafeBytes(of: uuid.uuid) { bytes in
                var random = Array(bytes[6..<16])
                random[0] &= 0x0F
                random[2] &= 0x3F
                return random
            }
        })
        #expect(randomParts.count == 200_000)
    }

    @Test("Bytes read straight from the kernel (each nonce's): 100,000 reads of 12 bytes all distinct, none all zero")
    func kernelBytes() {
        var seen = Set<[UInt8]>()
        for _ in 0..<100_000 {
            var bytes = [UInt8](repeating: 0, count: 12)
            bytes.withUnsafeMutableBytes { RandomBytes.fillFromKernel($0) }
            #expect(bytes.contains { $0 != 0 })
            seen.insert(bytes)
        }
        #expect(seen.count == 100_000)
    }

    @Test("A UUID is version 7, variant 10, with the current Unix time in milliseconds in its first 48 bits")
    func uuidLayout() {
        for _ in 0..<10_000 {
            let before = UInt64(Date().timeIntervalSince1970 * 1000)
            let uuid = UUID.timeOrdered()
            let after = UInt64(Date().timeIntervalSince1970 * 1000)
            withUnsafeBytes(of: uuid.uuid) { bytes in
                #expect(bytes[6] >> 4 == 7)
                #expect(bytes[8] >> 6 == 0b10)
                let milliseconds = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                #expect(milliseconds >= before && milliseconds <= after)
            }
            // Foundation reads the same version from the text form.
            let text = uuid.uuidString
            #expect(text[text.index(text.startIndex, offsetBy: 14)] == "7")
            #expect("89AB".contains(text[text.index(text.startIndex, offsetBy: 19)]))
        }
    }

    @Test("Requests of odd sizes across many refills, and larger than the pool: no 8 bytes seen twice, no zero run")
    func acrossRefills() {
        var output: [UInt8] = []
        let sizes = [12, 10, 7, 4096, 5000, 1, 0, 4095, 4097, 3, 12, 10, 65_536, 13, 8191, 2] + Array(repeating: 12, count: 3_000)
            + Array(repeating: 10, count: 3_000) + [4096, 7, 5000]
        for size in sizes {
            let bytes = RandomBytes.bytes(size)
            #expect(bytes.count == size)
            output += bytes
        }
        // A pool that handed out a byte twice (or repeated its buffer) would repeat 8-byte windows; random bytes repeat
        // one among these ~200,000 windows with a probability of about 1e-9.
        var windows = Set<UInt64>()
        windows.reserveCapacity(output.count)
        var repeated = 0
        output.withUnsafeBytes { raw in
            for start in 0..<(raw.count - 8) {
                if !windows.insert(raw.loadUnaligned(fromByteOffset: start, as: UInt64.self)).inserted { repeated += 1 }
            }
        }
        #expect(repeated == 0)
        // No 16 zero bytes in a row (a zeroed or unfilled pool).
        var zeros = 0
        var longest = 0
        for byte in output {
            zeros = byte == 0 ? zeros + 1 : 0
            longest = max(longest, zeros)
        }
        #expect(longest < 16)
    }

    @Test("The bytes' histogram is plausible (chi-square over 256 values, 1 MiB in 12-byte requests)")
    func histogram() {
        var counts = [Int](repeating: 0, count: 256)
        var total = 0
        for _ in 0..<(1 << 20) / 12 {
            for byte in RandomBytes.bytes(12) { counts[Int(byte)] += 1 }
            total += 12
        }
        let expected = Double(total) / 256
        let chiSquare = counts.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
        // 255 degrees of freedom: mean 255, standard deviation 22.6; both bounds are about 6 deviations away. Zeros give
        // about 268 million, one 4 KiB buffer handed out again and again about 256 times its own value (some 65,000).
        #expect(chiSquare > 120 && chiSquare < 400, "chi-square \(chiSquare)")
    }

    @Test("Same bytes: memcmp answers as comparing the UTF-8 arrays does, and NFC and NFD texts differ")
    func sameBytes() {
        #expect("é" == "e\u{301}")
        #expect(!SamplePreparer.sameBytes("é", "e\u{301}"))
        #expect(!SamplePreparer.sameBytes("com.apple.Health.é", "com.apple.Health.e\u{301}"))
        #expect(SamplePreparer.sameBytes("", ""))
        #expect(!SamplePreparer.sameBytes("", "a"))
        var random = SplitMix64(seed: 0xB17E5)
        let alphabet = ["a", "b", "é", "e\u{301}", "\u{0}", "😀", "-", "0"]
        func text() -> String {
            (0..<random.int(0...40)).map { _ in alphabet[random.below(alphabet.count)] }.joined()
        }
        for _ in 0..<20_000 {
            let first = text()
            // Often the same text, or one character changed, so that equal lengths are common.
            var second = first
            switch random.below(3) {
            case 0: break
            case 1: second = text()
            default:
                if !first.isEmpty {
                    var characters = Array(first)
                    characters[random.below(characters.count)] = Character(alphabet[random.below(alphabet.count)])
                    second = String(characters)
                }
            }
            // A bridged or shared substring's copy as well as native strings.
            let third = String(Substring(second))
            #expect(SamplePreparer.sameBytes(first, second) == (Array(first.utf8) == Array(second.utf8)))
            #expect(SamplePreparer.sameBytes(first, third) == (Array(first.utf8) == Array(third.utf8)))
        }
    }

    @Test("An import's sync identifier's hex digits read as String(format: \"%02x\") wrote them, and nothing else is read")
    func hexDigest() throws {
        var random = SplitMix64(seed: 0x4E7)
        for trial in 0..<5_000 {
            let digest = (0..<32).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let hex = digest.map { String(format: "%02x", $0) }.joined()
            let version = Int64(random.int(0...1_000_000))
            let values: [String: MetadataCodec.Value] = [HKMetadataKeySyncIdentifier: .string(MetadataCodec.importSyncPrefix + hex),
                                                          HKMetadataKeySyncVersion: .integer(version)]
            let compact = try #require(MetadataCodec.compactSync(values), "trial \(trial)")
            #expect(Array(compact.prefix(32)) == digest)
            #expect(Array(compact[32..<40]) == withUnsafeBytes(of: UInt64(bitPattern: version).littleEndian) { Array($0) })
            // Upper-case digits, or one character that is not a digit, are not an import's identifier.
            if hex.contains(where: { "abcdef".contains($0) }) {
                let upper = [HKMetadataKeySyncIdentifier: MetadataCodec.Value.string(MetadataCodec.importSyncPrefix + hex.uppercased()),
                             HKMetadataKeySyncVersion: .integer(version)]
                #expect(MetadataCodec.compactSync(upper) == nil)
            }
            var characters = Array(hex)
            characters[random.below(64)] = Character(["g", "G", "/", ":", "`", "{", " ", "é"][random.below(8)])
            let wrong = [HKMetadataKeySyncIdentifier: MetadataCodec.Value.string(MetadataCodec.importSyncPrefix + String(characters)),
                         HKMetadataKeySyncVersion: .integer(version)]
            #expect(MetadataCodec.compactSync(wrong) == nil)
        }
    }
}
