@testable import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// Importing an export again looks its plain records up in the store by the sync identifiers
/// their content gives them, a run at a time, and converts only those not stored: the report
/// still counts each one exactly, a changed or new record is stored, and nothing is saved for
/// the rest (no batch is committed).
@Suite("Apple Health import: a re-import finds stored records without converting them")
struct ReimportFastPathTests {
    static let watch = "&lt;&lt;HKDevice: 0x283a3c0a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:7.0&gt;"

    /// Heart rates from a watch, steps (one line twice), a record with metadata, one whose export
    /// gives it a sync identifier, a blood pressure correlation with its members, a workout.
    static func export(heartRateOf changed: String = "61", extra: Bool = false) -> String {
        var export = AppleHealthExportGenerator()
        let day = "2020-10-03 0"
        for minute in 0..<5 {
            export.record(type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: minute == 2 ? changed : "6\(minute)",
                          source: "Jane’s Apple Watch", device: watch, start: "\(day)7:0\(minute):00 -0400", end: "\(day)7:0\(minute):00 -0400")
        }
        export.record(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "500", start: "\(day)8:00:00 -0400", end: "\(day)8:30:00 -0400")
        export.record(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "500", start: "\(day)8:00:00 -0400", end: "\(day)8:30:00 -0400")
        export.record(type: "HKQuantityTypeIdentifierBodyMass", unit: "kg", value: "70", start: "\(day)9:00:00 -0400", end: "\(day)9:00:00 -0400",
                      metadata: [("HKWasUserEntered", "1"), ("HKTimeZone", "America/New_York")])
        export.record(type: "HKCategoryTypeIdentifierMindfulSession", value: "HKCategoryValueNotApplicable", start: "\(day)9:10:00 -0400",
                      end: "\(day)9:20:00 -0400", metadata: [(HKMetadataKeySyncIdentifier, "app-1"), (HKMetadataKeySyncVersion, "2")])
        export.raw(CorrelationTwinTests.correlation(at: "\(day)8:00:00 -0400", "121", "79"))
        if extra {
            export.record(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "42", start: "\(day)9:30:00 -0400", end: "\(day)9:31:00 -0400")
        }
        return export.document()
    }

    @Test("An unchanged export imported again stores nothing, commits no batch, and counts every sample as already there by type")
    func unchangedReimport() async throws {
        let url = try AppleHealthImporterTests.write(Self.export())
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        let first = try await AppleHealthImporter(batchSize: 3).importExport(at: url, into: store)
        let heart = HKQuantityTypeIdentifier.heartRate.rawValue, steps = HKQuantityTypeIdentifier.stepCount.rawValue
        #expect(first.imported[heart] == 5 && first.imported[steps] == 1 && first.alreadyStored[steps] == 1)
        #expect(first.imported[HKQuantityTypeIdentifier.bodyMass.rawValue] == 1)
        #expect(first.imported[HKCategoryTypeIdentifier.mindfulSession.rawValue] == 1)
        #expect(first.imported[HKCorrelationTypeIdentifier.bloodPressure.rawValue] == 1)
        #expect(first.batches > 0)

        let progressCalls = Counter()
        let second = try await AppleHealthImporter(batchSize: 3).importExport(at: url, into: store) { _ in progressCalls.add() }
        #expect(second.importedCount == 0)
        #expect(second.alreadyStored[heart] == 5 && second.alreadyStored[steps] == 2)
        #expect(second.alreadyStored[HKQuantityTypeIdentifier.bodyMass.rawValue] == 1)
        #expect(second.alreadyStored[HKCategoryTypeIdentifier.mindfulSession.rawValue] == 1)
        #expect(second.alreadyStored[HKCorrelationTypeIdentifier.bloodPressure.rawValue] == 1)
        #expect(second.alreadyStored[HKQuantityTypeIdentifier.bloodPressureSystolic.rawValue] == 1)
        #expect(second.alreadyStoredCount == first.importedCount + first.alreadyStoredCount)
        #expect(second.duplicates == first.duplicates && second.skipped == first.skipped)
        // The plain records were not saved again: only the records the lookup leaves out (the
        // one with the export's own sync identifier, the correlation) went to the store.
        #expect(second.batches < first.batches)
        #expect(progressCalls.value > 0)
        #expect(try await AppleHealthImporterTests.quantities(store, .heartRate).count == 5)
        #expect(try await AppleHealthImporterTests.quantities(store, .stepCount).count == 1)
    }

    @Test("A changed record and a new one in a re-import are stored; the unchanged ones are counted as already there")
    func changedRecordStored() async throws {
        let url = try AppleHealthImporterTests.write(Self.export())
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        _ = try await AppleHealthImporter(batchSize: 4).importExport(at: url, into: store)

        let changedURL = try AppleHealthImporterTests.write(Self.export(heartRateOf: "99", extra: true))
        defer { AppleHealthImporterTests.remove(changedURL) }
        let report = try await AppleHealthImporter(batchSize: 4).importExport(at: changedURL, into: store)
        let heart = HKQuantityTypeIdentifier.heartRate.rawValue, steps = HKQuantityTypeIdentifier.stepCount.rawValue
        #expect(report.imported[heart] == 1 && report.alreadyStored[heart] == 4)
        #expect(report.imported[steps] == 1 && report.alreadyStored[steps] == 2)
        #expect(report.importedCount == 2)
        let rates = try await AppleHealthImporterTests.quantities(store, .heartRate)
        let perMinute = HKUnit.count().unitDivided(by: .minute())
        // Another content is another sample (its sync identifier is its content's): both are kept.
        #expect(rates.count == 6 && rates.contains { $0.quantity.doubleValue(for: perMinute) == 99 })
        // The new sample is a watch's, with its device and source, as the first import stores them.
        let changed = try #require(rates.first { $0.quantity.doubleValue(for: perMinute) == 99 })
        #expect(changed.device?.hardwareVersion == "Watch6,1" && changed.sourceRevision.productType == "Watch6,1")
    }

    @Test("Content digests are hashed as before (name, sorted attributes, children), and written in lowercase hex")
    func digestAndHex() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let bytes = random.bytes(random.below(40))
            #expect(ContentKey.hex(bytes) == bytes.map { String(format: "%02x", $0) }.joined())
        }
        // SHA-256 of "Record NUL type SOH T NUL unit SOH é/min STX MetadataEntry NUL key SOH k NUL value SOH 1 STX ETX ETX".
        let child = ExportElement(name: "MetadataEntry", attributes: ["value": "1", "key": "k"], line: 2)
        let element = ExportElement(name: "Record", attributes: ["unit": "é/min", "type": "T"], line: 1, children: [child])
        #expect(ContentKey.hex(element.contentDigest) == "1dbe1e7875c173dfe3a512308bb16407aea22920b3c06356f852427b080d9e67")
        let empty = ExportElement(name: "", attributes: [:], line: 1)
        #expect(ContentKey.hex(empty.contentDigest) == "ee9040f65c341855e070ff438eb0ea9d5b831b2a2c270fb7ef592d750408e3b3")
    }

    @Test("The digest's bytes are name, attributes sorted as strings sort their names, children, on 1,000 random elements")
    func digestBytesRandom() {
        /// The bytes as the digest gathered them before: attributes sorted by `String`'s order, through strings.
        func reference(_ element: ExportElement) -> [UInt8] {
            var bytes = Array(element.name.utf8)
            var pairs: [(name: String, value: [UInt8])] = []
            element.forEachAttribute { name, value in pairs.append((String(decoding: name, as: UTF8.self), Array(value))) }
            for pair in pairs.sorted(by: { $0.name < $1.name }) {
                bytes.append(0)
                bytes.append(contentsOf: pair.name.utf8)
                bytes.append(1)
                bytes.append(contentsOf: pair.value)
            }
            bytes.append(2)
            for child in element.children { bytes += reference(child) }
            bytes.append(3)
            return bytes
        }
        var random = SplitMix64(seed: 3_636)
        let letters = ["a", "b", "B", "Z", "_", "é", "ü", "日", "e\u{301}", "1"]
        func text(_ length: Int, ascii: Bool) -> String {
            (0..<length).map { _ in letters[random.below(ascii ? 5 : letters.count)] }.joined()
        }
        func element(depth: Int) -> ExportElement {
            var attributes: [String: String] = [:]
            let ascii = random.chance(0.7)
            for _ in 0..<random.below(9) { attributes[text(1 + random.below(4), ascii: ascii)] = text(random.below(6), ascii: false) }
            let children = depth < 2 ? (0..<random.below(3)).map { _ in element(depth: depth + 1) } : []
            return ExportElement(name: text(random.below(5), ascii: false), attributes: attributes, line: 1, children: children)
        }
        for _ in 0..<1_000 {
            let sample = element(depth: 0)
            #expect(sample.contentBytes == reference(sample))
        }
    }

    @Test("The instruction filter's run copying gives what the byte-at-a-time filter gave, however the input is cut into chunks")
    func instructionFilterRuns() {
        /// The filter as it was, one byte at a time (`<?target?>` gets a blank before its `?`).
        struct Reference {
            var state = 0
            mutating func apply(_ bytes: [UInt8]) -> [UInt8] {
                var output: [UInt8] = []
                for byte in bytes {
                    switch state {
                    case 0: if byte == UInt8(ascii: "<") { state = 1 }
                    case 1: state = byte == UInt8(ascii: "?") ? 2 : byte == UInt8(ascii: "<") ? 1 : 0
                    default:
                        switch byte {
                        case UInt8(ascii: "?"): output.append(UInt8(ascii: " ")); state = 0
                        case UInt8(ascii: "<"): state = 1
                        case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"): state = 0
                        default: break
                        }
                    }
                    output.append(byte)
                }
                return output
            }
        }
        var random = SplitMix64(seed: 362)
        let alphabet = Array("<?>a \n\tx".utf8)
        for _ in 0..<2_000 {
            let bytes = (0..<random.below(60)).map { _ in alphabet[random.below(alphabet.count)] }
            var reference = Reference(), filter = InstructionFilter()
            var expected: [UInt8] = [], output: [UInt8] = []
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + 1 + random.below(12))
                expected += reference.apply(Array(bytes[start..<end]))
                output += filter.apply(Array(bytes[start..<end]))
                start = end
            }
            #expect(output == expected, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test("The store says which sync identifiers it holds, by source and type, and only to its owner")
    func storedSyncVersions() async throws {
        let store = AppleHealthImporterTests.ownerStore()
        let revision = HKSourceRevision(source: HKSource(name: "A", bundleIdentifier: "org.example.a"), version: nil)
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        let sample = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 5), start: start,
                                      end: start, metadata: [HKMetadataKeySyncIdentifier: "s-1", HKMetadataKeySyncVersion: 3])
        try await store.save([sample], recordedAs: [revision])
        let steps = HKQuantityTypeIdentifier.stepCount.rawValue
        let versions = try await store.storedSyncVersions(of: [
            ("s-1", steps, "org.example.a"), ("s-1", HKQuantityTypeIdentifier.heartRate.rawValue, "org.example.a"),
            ("s-1", steps, "org.example.b"), ("s-2", steps, "org.example.a"),
        ])
        #expect(versions == [3, nil, nil, nil])
        #expect(try await store.storedSyncVersions(of: []).isEmpty)
        let app = HKHealthStore(configuration: .init(location: .inMemory, role: .app))
        await #expect(throws: HKError.self) { _ = try await app.storedSyncVersions(of: [("s-1", steps, "org.example.a")]) }
    }

    @Test("Many sync identifiers are looked up at once (more than one statement's 500, repeated, shuffled), each found as on its own")
    func storedSyncVersionsMany() async throws {
        let store = AppleHealthImporterTests.ownerStore()
        let bundles = ["org.example.a", "org.example.b"]
        let revisions = bundles.map { HKSourceRevision(source: HKSource(name: $0, bundleIdentifier: $0), version: nil) }
        let types = [HKQuantityType(.stepCount), HKQuantityType(.heartRate)]
        let units = [HKUnit.count(), HKUnit.count().unitDivided(by: .minute())]
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        var samples: [HKObject] = [], sampleRevisions: [HKSourceRevision] = []
        // What each lookup must give, by identifier, type and bundle: the version saved, nil for none.
        var expected: [String: Int64] = [:]
        func save(_ identifier: String, type: Int, bundle: Int, version: Int) {
            let metadata: [String: Any] = [HKMetadataKeySyncIdentifier: identifier, HKMetadataKeySyncVersion: version]
            samples.append(HKQuantitySample(type: types[type], quantity: HKQuantity(unit: units[type], doubleValue: 5),
                                            start: start.addingTimeInterval(Double(samples.count)), end: start.addingTimeInterval(Double(samples.count)),
                                            metadata: metadata))
            sampleRevisions.append(revisions[bundle])
            expected[identifier + "|" + types[type].identifier + "|" + bundles[bundle]] = Int64(version)
        }
        for index in 0..<1_200 {
            save("k-\(index)", type: index % 5 == 0 ? 1 : 0, bundle: index % 3 == 0 ? 1 : 0, version: index % 4 + 1)
            // The same identifier under the other type: one hash, two rows of different types.
            if index % 11 == 0 { save("k-\(index)", type: index % 5 == 0 ? 0 : 1, bundle: index % 3 == 0 ? 1 : 0, version: 9) }
        }
        try await store.save(samples, recordedAs: sampleRevisions)
        var keys: [(syncIdentifier: String, typeIdentifier: String, sourceBundleIdentifier: String)] = []
        for index in 0..<1_300 {
            for type in types.indices { for bundle in bundles.indices { keys.append(("k-\(index)", types[type].identifier, bundles[bundle])) } }
        }
        keys += keys.prefix(100)
        var random = SplitMix64(seed: 36)
        keys.shuffle(using: &random)
        let versions = try await store.storedSyncVersions(of: keys)
        #expect(versions.count == keys.count)
        for (key, version) in zip(keys, versions) {
            #expect(version == expected[key.syncIdentifier + "|" + key.typeIdentifier + "|" + key.sourceBundleIdentifier], "\(key)")
        }
        #expect(versions.compactMap { $0 }.count > 1_000)
    }
}

/// Counts calls from any thread.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
