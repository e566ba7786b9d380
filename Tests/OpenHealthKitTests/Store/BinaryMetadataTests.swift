import Crypto
import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

/// Metadata sealed in binary (flag 32, issue 36): every entry as a one-byte well-known key code
/// or its key's text and a typed value. It must expand to exactly the JSON the metadata encodes
/// to, old forms must keep reading, and damaged bytes must be refused with an error.
@Suite("Binary metadata in sealed records: exact expansion, old forms, arbitrary bytes")
struct BinaryMetadataTests {
    static let keys = ["HKMetadataKeySyncIdentifier", "HKMetadataKeySyncVersion", "HKMetadataKeyHeartRateMotionContext", "HKTimeZone",
                       "HKWasUserEntered", "HKExternalUUID", "HKAverageMETs", "HKMetadataKeyMaximumLightIntensity", "tag", "Tag", "a",
                       "é", "😀 key", "with space", "HKMetadataKeySyncIdentifierX", "k\u{0}", "/\\\"", "x.y", "Z", "HKTIMEZONE"]
    static let texts = ["", "a", "Europe/Zurich", "é", "e\u{301}", "😀", "\u{0}", "\u{1}\n\t", "/\\\"", "8.248 kcal/hr·kg", "\u{FFFF}", "\u{7F}",
                        String(repeating: "x", count: 300)]
    static let doubles: [Double] = [0, -0.0, 1, -1, 2.5, 1e16, -1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                    .leastNonzeroMagnitude, .leastNormalMagnitude, 0.1, 1.0 / 3, 9_007_199_254_740_994]
    static let integers: [Int64] = [0, 1, -1, 63, 64, -64, -65, 127, 128, 1 << 53, (1 << 53) + 1, .max, .min, .max - 1, .min + 1]

    static func digest(_ random: inout SplitMix64) -> String {
        MetadataCodec.importSyncPrefix + random.bytes(32).map { String(format: "%02x", $0) }.joined()
    }

    static func value(_ random: inout SplitMix64) -> MetadataCodec.Value {
        switch random.below(9) {
        case 0: return .string(texts[random.below(texts.count)])
        case 1: return .string(digest(&random) + ["", ".heartbeats", ":route:route_2024-12-30_8.17am.gpx", "é"][random.below(4)])
        case 2: return .bool(random.chance(0.5))
        case 3: return .integer(integers[random.below(integers.count)])
        case 4: return .integer(Int64(bitPattern: random.next()) >> random.below(64))
        case 5: return random.chance(0.5) ? .double(doubles[random.below(doubles.count)]) : .double(Double(Int64(bitPattern: random.next()) >> 11) / 1e6)
        case 6:
            let seconds = [Date.distantPast.timeIntervalSinceReferenceDate, Date.distantFuture.timeIntervalSinceReferenceDate, 0, -0.0, 1.25,
                           Double(random.below(1 << 30)) + 0.001][random.below(6)]
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 7: return .quantity(doubles[random.below(doubles.count)], unit: ["count/min", "mL/min·kg", "kcal/hr·kg", "", "degF"][random.below(5)])
        default: return .string(String(decoding: random.bytes(random.below(12)).map { $0 & 0x7F }, as: UTF8.self))
        }
    }

    /// The binary form of `values`, required to exist and to expand to `encode(values)`, through a sealed payload too.
    static func expectExact(_ values: [String: MetadataCodec.Value]) throws {
        let json = try MetadataCodec.encode(values)
        let binary = try #require(MetadataCodec.compactBinary(values, json: json), "\(values)")
        var offset = 0
        let expanded = try binary.withUnsafeBufferPointer { try MetadataCodec.expandBinary($0, offset: &offset) }
        #expect(expanded == json, "\(values)")
        #expect(offset == binary.count)
        // Bit for bit, not only equal: -0.0 stays -0.0.
        let decoded = try binary.withUnsafeBufferPointer { pointer in
            var start = 0
            return try MetadataCodec.decodeBinary(pointer, offset: &start)
        }
        #expect(decoded.count == values.count)
        for (key, value) in values {
            switch (value, decoded[key]) {
            case (.double(let left), .double(let right)?): #expect(left.bitPattern == right.bitPattern)
            case (.quantity(let left, let unit), .quantity(let right, let other)?): #expect(left.bitPattern == right.bitPattern && unit == other)
            case (.date(let left), .date(let right)?):
                #expect(left.timeIntervalSinceReferenceDate.bitPattern == right.timeIntervalSinceReferenceDate.bitPattern)
            case (.string(let left), .string(let right)?): #expect(Array(left.utf8) == Array(right.utf8))
            default: #expect(decoded[key] == value)
            }
        }
        var payload = SamplePayload(double: 1.5, metadata: json, device: nil, extra: Data([1, 2, 3]))
        payload.binaryMetadata = binary
        payload.deviceReference = Data(repeating: 7, count: SamplePayload.deviceReferenceCount)
        let sealed = payload.encoded()
        let read = try SamplePayload(decoding: sealed)
        #expect(read.metadata == json && read.extra == Data([1, 2, 3]) && read.deviceReference == payload.deviceReference)
        #expect(try SamplePayload.primaryBits(of: sealed) == 1.5.bitPattern)
    }

    @Test("Random metadata of every value type, well-known and other keys, expands to its JSON byte for byte")
    func randomRoundTrip() throws {
        var random = SplitMix64(seed: 3_601)
        for _ in 0..<3_000 {
            var values: [String: MetadataCodec.Value] = [:]
            for _ in 0..<random.int(0...6) {
                values[Self.keys[random.below(Self.keys.count)]] = Self.value(&random)
            }
            try Self.expectExact(values)
        }
        // Every edge value alone, under a well-known key and under another.
        for key in ["HKMetadataKeyHeartRateMotionContext", "custom"] {
            for number in Self.integers { try Self.expectExact([key: .integer(number)]) }
            for number in Self.doubles {
                try Self.expectExact([key: .double(number)])
                try Self.expectExact([key: .quantity(number, unit: "kg")])
                try Self.expectExact([key: .date(Date(timeIntervalSinceReferenceDate: number))])
            }
            for text in Self.texts { try Self.expectExact([key: .string(text)]) }
        }
        try Self.expectExact([:])
    }

    @Test("An import's heart rate shrinks from 91 to 41 metadata bytes; an app's sync metadata is binary too")
    func sizes() throws {
        var random = SplitMix64(seed: 3_602)
        let identifier = Self.digest(&random)
        let heartRate: [String: MetadataCodec.Value] = [HKMetadataKeySyncIdentifier: .string(identifier), HKMetadataKeySyncVersion: .integer(1),
                                                        HKMetadataKeyHeartRateMotionContext: .integer(1)]
        let compact = try #require(MetadataCodec.compactSync(heartRate))
        let binary = try #require(MetadataCodec.compactBinary(heartRate, json: MetadataCodec.encode(heartRate)))
        #expect(4 + compact.count == 91 && binary.count == 41)
        let imported: [String: MetadataCodec.Value] = [HKMetadataKeySyncIdentifier: .string(identifier), HKMetadataKeySyncVersion: .integer(1)]
        #expect(try #require(MetadataCodec.compactBinary(imported, json: MetadataCodec.encode(imported))).count == 38)
        let app: [String: MetadataCodec.Value] = [HKMetadataKeySyncIdentifier: .string("app-sync-12"), HKMetadataKeySyncVersion: .integer(3),
                                                  HKMetadataKeyWasUserEntered: .bool(true)]
        let appJSON = try MetadataCodec.encode(app)
        #expect(try #require(MetadataCodec.compactBinary(app, json: appJSON)).count == 1 + 2 + 1 + 11 + 3 + 2)
        #expect(appJSON.count > 100)
    }

    @Test("Beyond text and whole numbers, the binary form is refused when it would not expand to the JSON the save path holds")
    func refusedWhenNotExact() throws {
        for value: MetadataCodec.Value in [.double(2.5), .bool(true), .date(Date(timeIntervalSinceReferenceDate: 1)), .quantity(1, unit: "kg"),
                                           .string("line\nbreak")] {
            let values: [String: MetadataCodec.Value] = ["HKTimeZone": value]
            #expect(MetadataCodec.compactBinary(values, json: Data("{}".utf8)) == nil)
            #expect(MetadataCodec.compactBinary(values, json: try MetadataCodec.encode(values)) != nil)
        }
        // Keys other than ASCII letters are checked too.
        let digits: [String: MetadataCodec.Value] = ["HKVO2MaxTestType": .integer(1)]
        #expect(MetadataCodec.compactBinary(digits, json: Data("{}".utf8)) == nil)
    }

    @Test("The well-known key table is append-only: its codes are pinned")
    func tablePinned() {
        let keys = MetadataCodec.wellKnownKeys
        #expect(Set(keys).count == keys.count && keys.count < 256)
        #expect(keys.count == 70)
        #expect(keys[0] == HKMetadataKeySyncIdentifier && keys[1] == HKMetadataKeySyncVersion && keys[2] == HKMetadataKeyHeartRateMotionContext)
        let digest = SHA256.hash(data: Data(keys.joined(separator: "\n").utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(digest == Self.tableDigest, "the table changed: codes are stored data, append only and pin the new digest")
    }

    static let tableDigest = "cffa37358b04c7a51d0c4915e5d743c66b9015a59cec289a61d202c3d906531d"

    @Test("Arbitrary, mutated and truncated binary metadata is refused with an error, never a trap")
    func fuzz() throws {
        var random = SplitMix64(seed: 3_603)
        var valid: [[UInt8]] = []
        for _ in 0..<200 {
            var values: [String: MetadataCodec.Value] = [:]
            for _ in 0..<random.int(1...5) { values[Self.keys[random.below(Self.keys.count)]] = Self.value(&random) }
            if let binary = MetadataCodec.compactBinary(values, json: try MetadataCodec.encode(values)) { valid.append(binary) }
        }
        #expect(valid.count == 200)
        var decodedCount = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0: bytes = random.bytes(random.below(64))
            case 1:
                bytes = valid[random.below(valid.count)]
                for _ in 0...random.below(3) { bytes[random.below(bytes.count)] ^= UInt8(truncatingIfNeeded: 1 << random.below(8)) }
            default:
                let whole = valid[random.below(valid.count)]
                bytes = Array(whole.prefix(random.below(whole.count)))
                var offset = 0
                #expect(throws: HealthStoreError.self) { try bytes.withUnsafeBufferPointer { _ = try MetadataCodec.expandBinary($0, offset: &offset) } }
            }
            var offset = 0
            do {
                _ = try bytes.withUnsafeBufferPointer { try MetadataCodec.expandBinary($0, offset: &offset) }
                #expect(offset <= bytes.count)
                decodedCount += 1
            } catch is HealthStoreError {
            } catch {
                Issue.record("untyped error \(error)")
            }
            // As a record's metadata section (flags 1 and 32), with and without what follows.
            let record = [SamplePayload.format, 1 | 32] + StoredLayoutTests.littleEndian(UInt64(9)) + bytes
            do {
                _ = try SamplePayload(decoding: Data(record))
            } catch is HealthStoreError {
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
        #expect(decodedCount > 100)
        // Flags 32 without its section, or with flag 8, are refused.
        for flags: UInt8 in [32, 1 | 8 | 32] {
            let record = [SamplePayload.format, flags] + StoredLayoutTests.littleEndian(UInt64(9)) + valid[0]
            #expect(throws: HealthStoreError.self) { _ = try SamplePayload(decoding: Data(record)) }
        }
    }
}
