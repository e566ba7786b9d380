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
