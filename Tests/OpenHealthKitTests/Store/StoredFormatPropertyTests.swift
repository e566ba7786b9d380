import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

/// The decoders of stored bytes meet damaged or hostile input: every one must throw or
/// decode, never crash or hang, and every valid encoding must round-trip.
@Suite("Stored formats: round trips and arbitrary bytes")
struct StoredFormatPropertyTests {
    @Test("Sample payloads round-trip every combination of sections")
    func payloadRoundTrip() throws {
        var random = SplitMix64(seed: 1)
        for _ in 0..<500 {
            let value = Double(bitPattern: random.next())
            let sections = (0..<3).map { _ in random.below(2) == 0 ? nil : Data(random.bytes(random.below(64))) }
            let payload = SamplePayload(double: value, metadata: sections[0], device: sections[1], extra: sections[2])
            let decoded = try SamplePayload(decoding: payload.encoded())
            #expect(decoded.primaryBits == value.bitPattern)
            #expect(decoded.metadata == sections[0] && decoded.device == sections[1] && decoded.extra == sections[2])
            #expect(try SamplePayload.primaryBits(of: payload.encoded()) == value.bitPattern)
        }
    }

    @Test("Arbitrary and truncated bytes never crash the payload and quantity decoders")
    func payloadGarbage() {
        var random = SplitMix64(seed: 2)
        for round in 0..<5_000 {
            var data = Data(random.bytes(random.below(80)))
            if round % 2 == 0, !data.isEmpty { data[0] = SamplePayload.format }
            _ = try? SamplePayload(decoding: data)
            _ = try? SamplePayload.primaryBits(of: data)
            _ = try? QuantityExtra(decoding: data)
            // Valid encodings cut short must throw, not read past the end.
            let valid = SamplePayload(integer: 7, metadata: Data(random.bytes(10)), device: nil, extra: Data(random.bytes(5))).encoded()
            let cut = valid.prefix(random.below(valid.count))
            #expect(throws: HealthStoreError.self) { _ = try SamplePayload(decoding: Data(cut)) }
        }
    }

    @Test("Quantity details round-trip and survive arbitrary bytes")
    func quantityExtra() throws {
        var random = SplitMix64(seed: 3)
        for _ in 0..<500 {
            let extra = QuantityExtra(count: random.below(2) == 0 ? nil : Int(truncatingIfNeeded: random.next()),
                                      originalValue: Double(random.below(10_000)) / 7,
                                      originalUnit: ["count/min", "lb", "mmol<180.1558800000541>/L", "mL/min·kg"][random.below(4)])
            #expect(try QuantityExtra(decoding: extra.encoded()) == extra)
        }
    }

    @Test("Anchors round-trip through their data form; anything else is nil")
    func anchors() {
        var random = SplitMix64(seed: 4)
        for _ in 0..<2_000 {
            let anchor = HKQueryAnchor(storeID: UUID().uuidString, sequence: Int64(random.below(Int(Int32.max))))
            #expect(HKQueryAnchor(data: anchor.data) == anchor)
            let garbage = Data(random.bytes(random.below(40)))
            if let parsed = HKQueryAnchor(data: garbage) { #expect(parsed.sequence >= 0) }
            var text = "ohk1:\(UUID().uuidString):"
            text += String(decoding: random.bytes(random.below(6)), as: UTF8.self)
            _ = HKQueryAnchor(data: Data(text.utf8))
        }
        #expect(HKQueryAnchor(data: Data("ohk1:x:-5".utf8)) == nil)
        #expect(HKQueryAnchor(data: Data("ohk1:x:99999999999999999999999".utf8)) == nil)
    }

    @Test("Metadata JSON that is not ours is rejected with an error")
    func metadataGarbage() throws {
        var random = SplitMix64(seed: 5)
        let samples = ["{}", "[]", "null", "{\"k\": 1}", "{\"k\": {}}", "{\"k\": {\"q\": 1}}", "{\"k\": {\"s\": 5}}", "{\"k\": {\"t\": \"x\"}}"]
        for text in samples {
            _ = try? MetadataCodec.decode(Data(text.utf8))
        }
        #expect(try MetadataCodec.decode(Data("{}".utf8)).isEmpty)
        #expect(throws: HealthStoreError.self) { try MetadataCodec.decode(Data("{\"k\": {}}".utf8)) }
        for _ in 0..<2_000 {
            _ = try? MetadataCodec.decode(Data(random.bytes(random.below(64))))
        }
        let values: [String: MetadataCodec.Value] = ["s": .string("ü\u{0}é"), "b": .bool(true), "i": .integer(-3), "d": .double(2.5),
                                                     "t": .date(Date(timeIntervalSinceReferenceDate: 12.25)), "q": .quantity(3, unit: "kg")]
        #expect(try MetadataCodec.decode(MetadataCodec.encode(values)) == values)
    }
}

/// The stored layouts, byte for byte, as the save path writes them: stores written before must
/// stay readable and records must keep authenticating.
@Suite("Stored formats: the save path's bytes")
struct StoredLayoutTests {
    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    @Test("Quantity details, payloads, record contexts and value blocks have their documented layouts")
    func layouts() throws {
        let extra = QuantityExtra(count: 3, originalValue: 72, originalUnit: "count/min")
        let extraBytes = [3] + Self.littleEndian(UInt64(3)) + Self.littleEndian(72.0.bitPattern) + Self.littleEndian(UInt16(9))
            + Array("count/min".utf8)
        #expect([UInt8](extra.encoded()) == extraBytes)

        let payload = SamplePayload(double: 1.2, metadata: Data([9, 8]), device: nil, extra: extra.encoded())
        let payloadBytes = [SamplePayload.format, 1 | 4] + Self.littleEndian(1.2.bitPattern) + Self.littleEndian(UInt32(2)) + [9, 8]
            + Self.littleEndian(UInt32(extraBytes.count)) + extraBytes
        #expect(payload.encodedBytes() == payloadBytes)
        #expect([UInt8](payload.encoded()) == payloadBytes)

        let uuid = UUID()
        let type = HKQuantityTypeIdentifier.heartRate.rawValue
        let context = RecordContext(uuid: uuid, type: type, kind: .quantity, start: 1.5, end: 61.5)
        #expect(context.bytes == RecordContext(uuid: uuid.databaseBlob, type: type, kind: .quantity, start: 1.5, end: 61.5).bytes)
        #expect(context.bytes == [UInt8](uuid.databaseBlob) + [1] + Self.littleEndian(1.5.bitPattern) + Self.littleEndian(61.5.bitPattern)
            + Array(type.utf8))

        let entry = ValueBlock.Entry(uuid: uuid, start: 1.5, end: 61.5, valueBits: 1.2.bitPattern)
        let entryBytes = [UInt8](uuid.databaseBlob) + Self.littleEndian(1.5.bitPattern) + Self.littleEndian(61.5.bitPattern)
            + Self.littleEndian(1.2.bitPattern)
        #expect(ValueBlock.format1Plaintext([entry, entry]) == entryBytes + entryBytes)
        // Format 2: the count; per entry a header (start form, end form, value form, value length),
        // the UUID's first 8 bytes (big-endian) as the zigzag LEB128 difference from the last
        // entry's, its last 8 bytes, the start, the end and the value.
        let first = try #require(UUID(uuidString: "0192F3A4-5B6C-7D8E-9FA0-B1C2D3E4F506"))
        let next = try #require(UUID(uuidString: "0192F3A4-5B6C-7D95-9FA0-B1C2D3E4F507"))
        let tail: [UInt8] = [0x9F, 0xA0, 0xB1, 0xC2, 0xD3, 0xE4, 0xF5, 0x06]
        let nextTail: [UInt8] = [0x9F, 0xA0, 0xB1, 0xC2, 0xD3, 0xE4, 0xF5, 0x07]
        let firstEntry = ValueBlock.Entry(uuid: first, start: 1.5, end: 61.5, valueBits: 1.2.bitPattern)
        let second = ValueBlock.Entry(uuid: next, start: 757_000_000, end: 757_000_060, valueBits: 1.25.bitPattern)
        let third = ValueBlock.Entry(uuid: first, start: 756_999_940, end: 756_999_940, valueBits: 1.5.bitPattern)
        var format2: [UInt8] = [3, 0, 0b1000_0101]
        // zigzag(0x0192F3A45B6C7D8E) = 0x0325E748B6D8FB1C in LEB128.
        format2 += [0x9C, 0xF6, 0xE3, 0xB6, 0x8B, 0xE9, 0xF9, 0x92, 0x03] + tail
        format2 += Self.littleEndian(1.5.bitPattern) + Self.littleEndian(61.5.bitPattern) + Self.littleEndian(1.2.bitPattern)
        format2 += [0b0010_0010]
        format2 += [14] + nextTail  // +7
        format2 += [0x80, 0x9D, 0xF7, 0xD1, 0x05, 60, 0xF4, 0x3F]
        format2 += [0b0010_0000]
        format2 += [13] + tail  // -7
        format2 += [0x77, 0xF8, 0x3F]
        #expect(ValueBlock.plaintext([firstEntry, second, third]) == format2)
    }

    /// An import's heart rate: digest bytes 0...31, version 1, motion context 1, as JSON.
    static let heartRateJSON = "{\"HKMetadataKeyHeartRateMotionContext\":{\"i\":1},\"HKMetadataKeySyncIdentifier\":{\"s\":\"apple-health-export:"
        + (0..<32).map { String(format: "%02x", $0) }.joined() + "\"},\"HKMetadataKeySyncVersion\":{\"i\":1}}"

    @Test("Records sealed before binary metadata (plain JSON, flag 8's compact sync form) still read the same")
    func oldMetadataForms() throws {
        let digest = [UInt8](0..<32)
        let reference = [UInt8](repeating: 0xAB, count: 16)
        let motion = Array("{\"HKMetadataKeyHeartRateMotionContext\":{\"i\":1}}".utf8)
        // Flag 8 (with 1 and 16): 4-byte length, 32 digest bytes, 8-byte version, JSON of the others; the device reference.
        let compact: [UInt8] = [SamplePayload.format, 1 | 8 | 16] + Self.littleEndian(72.0.bitPattern) + Self.littleEndian(UInt32(40 + motion.count))
            + digest + Self.littleEndian(UInt64(1)) + motion + reference
        let fromCompact = try SamplePayload(decoding: Data(compact))
        #expect(fromCompact.metadata == Data(Self.heartRateJSON.utf8))
        #expect(fromCompact.deviceReference == Data(reference) && fromCompact.doubleValue == 72)
        // Plain JSON (flag 1), with the device's JSON (flag 2).
        let json = Array(Self.heartRateJSON.utf8)
        let plain: [UInt8] = [SamplePayload.format, 1 | 2] + Self.littleEndian(72.0.bitPattern) + Self.littleEndian(UInt32(json.count)) + json
            + Self.littleEndian(UInt32(2)) + Array("{}".utf8)
        let fromPlain = try SamplePayload(decoding: Data(plain))
        #expect(fromPlain.metadata == Data(json) && fromPlain.device == Data("{}".utf8) && fromPlain.deviceReference == nil)
    }

    @Test("Binary metadata (flag 32) has its documented layout: count, key code, type, value; no length prefix")
    func binaryMetadataLayout() throws {
        let values = try MetadataCodec.decode(Data(Self.heartRateJSON.utf8))
        let json = try MetadataCodec.encode(values)
        #expect(json == Data(Self.heartRateJSON.utf8))
        let binary = try #require(MetadataCodec.compactBinary(values, json: json))
        // 3 entries: sync identifier (code 1) as an import digest (type 7), version (code 2) and motion context (code 3) as zigzag integers (type 3).
        #expect(binary == [3, 1, 7] + [UInt8](0..<32) + [2, 3, 2] + [3, 3, 2])
        var payload = SamplePayload(double: 72, metadata: json, device: nil, extra: nil)
        payload.binaryMetadata = binary
        payload.compactMetadata = MetadataCodec.compactSync(values)
        payload.deviceReference = Data(repeating: 0xAB, count: 16)
        let pinned: [UInt8] = [SamplePayload.format, 1 | 16 | 32] + Self.littleEndian(72.0.bitPattern) + binary + [UInt8](repeating: 0xAB, count: 16)
        #expect(payload.encodedBytes() == pinned)
        let decoded = try SamplePayload(decoding: Data(pinned))
        #expect(decoded.metadata == json && decoded.deviceReference == Data(repeating: 0xAB, count: 16))
        // An app's own metadata: inline keys (code 0, length, text), text, Booleans, doubles, dates and quantities.
        let app: [String: MetadataCodec.Value] = ["tag": .string("x"), HKMetadataKeyWasUserEntered: .bool(true), "d": .double(-0.0),
                                                  HKMetadataKeyTimeZone: .string("UTC"), "t": .date(Date(timeIntervalSinceReferenceDate: 1.5)),
                                                  HKMetadataKeyLapLength: .quantity(25, unit: "m")]
        let appBinary = try #require(MetadataCodec.compactBinary(app, json: MetadataCodec.encode(app)))
        // Ordered by key byte (inline keys, code 0, first), then by key bytes.
        let expected: [UInt8] = [6] + [0, 1] + Array("d".utf8) + [4] + Self.littleEndian((-0.0).bitPattern)
            + [0, 1] + Array("t".utf8) + [5] + Self.littleEndian(1.5.bitPattern)
            + [0, 3] + Array("tag".utf8) + [0, 1] + Array("x".utf8)
            + [4, 0, 3] + Array("UTC".utf8) + [5, 2] + [38, 6] + Self.littleEndian(25.0.bitPattern) + [1] + Array("m".utf8)
        #expect(appBinary == expected)
    }

    @Test("A unit string longer than 65,535 bytes is cut at that length, as before")
    func longUnit() throws {
        let unit = String(repeating: "m", count: 70_000)
        let decoded = try QuantityExtra(decoding: QuantityExtra(originalValue: 1, originalUnit: unit).encoded())
        #expect(decoded.originalUnit?.utf8.count == Int(UInt16.max))
    }
}
