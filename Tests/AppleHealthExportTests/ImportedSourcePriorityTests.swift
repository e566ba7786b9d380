import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// Imported sources carry their device's model as the revision's product type, so the
/// statistics merge ranks a watch before a phone whatever the export's order.
@Suite("Apple Health import: device product types rank sources")
struct ImportedSourcePriorityTests {
    static let phone = "&lt;&lt;HKDevice: 0x283c0a8b0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone12,1, software:14.2&gt;"
    static let start = "2020-10-03 10:00:00 -0400", end = "2020-10-03 11:00:00 -0400"

    /// One walk counted by the watch (1,000 steps) and the phone (1,200 steps), in the given order.
    static func export(watchFirst: Bool) -> String {
        let watch = AppleHealthExportGenerator.recordText(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "1000",
                                                          source: "Jane’s Apple Watch", version: "7.0", device: AppleHealthExportGenerator.watch,
                                                          start: start, end: end, metadata: [], indent: " ")
        let phone = AppleHealthExportGenerator.recordText(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "1200",
                                                          source: "Jane’s iPhone", version: "14.2", device: Self.phone,
                                                          start: start, end: end, metadata: [], indent: " ")
        var generator = AppleHealthExportGenerator()
        for text in watchFirst ? [watch, phone] : [phone, watch] { generator.raw(text) }
        return generator.document()
    }

    @Test("Overlapping watch and phone steps give the watch's total in either file order", arguments: [true, false])
    func watchRanksFirst(watchFirst: Bool) async throws {
        let url = try AppleHealthImporterTests.write(Self.export(watchFirst: watchFirst))
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        _ = try await AppleHealthImporter().importExport(at: url, into: store)

        let samples = try await AppleHealthImporterTests.quantities(store, .stepCount)
        #expect(samples.count == 2)
        let productTypes = samples.map { $0.sourceRevision.productType }
        #expect(Set(productTypes) == ["Watch6,1", "iPhone12,1"])
        let statistics = try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: HKQuantityType(.stepCount)),
                                                               options: .cumulativeSum).result(for: store)
        #expect(statistics?.sumQuantity()?.doubleValue(for: .count()) == 1_000)
    }

    @Test("Only Apple model identifiers become product types", arguments: [
        ("Watch6,1", "Watch6,1"), ("iPhone12,1", "iPhone12,1"), ("1.0", nil), ("Watch6", nil), (",1", nil),
        ("Watch6,", nil), ("6,1", nil), ("Watch6,1,2", nil), ("", nil), ("Wätch6,1", nil),
    ] as [(String, String?)])
    func productTypes(hardware: String, expected: String?) async throws {
        let device = "&lt;&lt;HKDevice: 0x1&gt;, name:Thing, manufacturer:Acme, hardware:\(hardware), software:1&gt;"
        var generator = AppleHealthExportGenerator()
        generator.record(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "10", source: "Thing", device: device,
                         start: Self.start, end: Self.end)
        let url = try AppleHealthImporterTests.write(generator.document())
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        _ = try await AppleHealthImporter().importExport(at: url, into: store)
        let sample = try #require(try await AppleHealthImporterTests.quantities(store, .stepCount).first)
        #expect(sample.sourceRevision.productType == expected)
    }
}
