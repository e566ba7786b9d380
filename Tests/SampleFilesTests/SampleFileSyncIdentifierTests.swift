import Foundation
import OpenHealthKit
import SampleFiles
import Testing
import TestSupport

/// The sync identifiers `health store import` gives rows: derived from the row's content (the
/// same content, the same identifier, in every run; any field changed, another), or the row's own.
@Suite("Sync identifiers of sample-file rows")
struct SampleFileSyncIdentifierTests {
    let parser = SampleFileParser(timeZone: TimeZone(identifier: "UTC") ?? .current)

    /// A random row's content.
    static func content(_ generator: inout SplitMix64) -> SampleFileContent {
        let types = ["HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount", "HKCategoryTypeIdentifierSleepAnalysis"]
        let start = Date(timeIntervalSinceReferenceDate: Double(generator.int(0...900_000_000)) + Double(generator.below(1000)) / 1000)
        var metadata: [String: SampleFileMetadataValue] = [:]
        for index in 0..<generator.below(4) {
            switch generator.below(3) {
            case 0: metadata["key\(index)"] = .text(generator.digits(generator.int(0...6)))
            case 1: metadata["key\(index)"] = .integer(Int64(generator.int(-1_000...1_000)))
            default: metadata["key\(index)"] = .number(Double(generator.int(-1_000...1_000)) + 0.25)
            }
        }
        return SampleFileContent(type: types[generator.below(types.count)], start: start,
                                 end: start.addingTimeInterval(Double(generator.int(0...7_200))),
                                 value: Double(generator.int(0...200)) + (generator.chance(0.5) ? 0.5 : 0),
                                 unit: generator.chance(0.5) ? nil : ["count/min", "count", "min^-1"][generator.below(3)], metadata: metadata)
    }

    @Test("Property: the digest is the same in every run and differs when any one field differs")
    func digestProperty() {
        var generator = SplitMix64(seed: 35)
        var seen: Set<String> = []
        for _ in 0..<2_000 {
            let content = Self.content(&generator)
            let identifier = content.derivedSyncIdentifier
            // A copy built field by field (another run) gives the same identifier.
            let again = SampleFileContent(type: content.type, start: Date(timeIntervalSinceReferenceDate: content.start.timeIntervalSinceReferenceDate),
                                          end: content.end, value: content.value, unit: content.unit.map { String($0) },
                                          metadata: Dictionary(uniqueKeysWithValues: content.metadata.reversed().map { ($0.key, $0.value) }))
            #expect(again.derivedSyncIdentifier == identifier)
            #expect(identifier.hasPrefix(SampleFileContent.syncIdentifierPrefix) && identifier.count == SampleFileContent.syncIdentifierPrefix.count + 64)
            seen.insert(identifier)
            // Each field changed alone changes it.
            var changes: [SampleFileContent] = []
            var changed = content
            changed.type += "X"; changes.append(changed); changed = content
            changed.start = content.start.addingTimeInterval(0.001); changes.append(changed); changed = content
            changed.end = content.end.addingTimeInterval(1); changes.append(changed); changed = content
            changed.value = content.value + 1; changes.append(changed); changed = content
            changed.unit = content.unit == nil ? "count" : nil; changes.append(changed); changed = content
            changed.unit = (content.unit ?? "") + "/s"; changes.append(changed); changed = content
            changed.metadata["extra"] = .text(""); changes.append(changed); changed = content
            if let key = content.metadata.keys.first {
                changed.metadata[key] = nil; changes.append(changed); changed = content
                changed.metadata[key] = .text("changed"); changes.append(changed); changed = content
            }
            for change in changes {
                #expect(change.derivedSyncIdentifier != identifier, "\(change) has the identifier of \(content)")
            }
        }
        #expect(seen.count == 2_000)
    }

    @Test("The same file read twice gives the same identifiers; different rows, different ones; the sample carries it, version 1")
    func fileRowsAreStable() throws {
        let text = """
            type,start,end,value,unit,metadata
            heartRate,2026-11-20T08:00:00Z,,61,count/min,
            heartRate,2026-11-20T08:00:00Z,,61.0,count/min,
            heartRate,2026-11-20T08:00:00Z,,62,count/min,
            heartRate,2026-11-20T08:00:00Z,,61,min^-1,
            heartRate,2026-11-20T08:00:00Z,,61,count/min,"{""HKWasUserEntered"":1}"
            """
        let first = try parser.read(text, format: .csv)
        let second = try SampleFileParser(timeZone: TimeZone(identifier: "UTC") ?? .current).read(text, format: .csv)
        #expect(first.refused.isEmpty)
        #expect(first.rows.map(\.syncIdentifier) == second.rows.map(\.syncIdentifier))
        let identifiers = first.rows.map(\.syncIdentifier)
        // 61 and 61.0 are the same value; the other rows differ in value, unit or metadata.
        #expect(identifiers[0] == identifiers[1])
        #expect(Set(identifiers).count == 4)
        let sample = try #require(first.rows[4].sample as? HKQuantitySample)
        #expect(sample.metadata?[HKMetadataKeySyncIdentifier] as? String == identifiers[4])
        #expect((sample.metadata?[HKMetadataKeySyncVersion] as? NSNumber)?.intValue == 1)
        #expect((sample.metadata?["HKWasUserEntered"] as? NSNumber)?.intValue == 1)
    }

    @Test("A row's own sync identifier and version are kept (fields or metadata keys)")
    func ownIdentifier() throws {
        let lines = """
            {"type":"stepCount","start":"2026-11-20T10:00:00Z","value":3,"syncIdentifier":"watch-42","syncVersion":3}
            {"type":"stepCount","start":"2026-11-20T10:00:00Z","value":3,"metadata":{"HKMetadataKeySyncIdentifier":"phone-7","HKMetadataKeySyncVersion":2}}
            {"type":"stepCount","start":"2026-11-20T10:00:00Z","value":3,"metadata":{"HKMetadataKeySyncIdentifier":"phone-8"}}
            """
        let contents = try parser.read(lines, format: .jsonLines)
        #expect(contents.refused.isEmpty)
        #expect(contents.rows.map(\.syncIdentifier) == ["watch-42", "phone-7", "phone-8"])
        #expect(contents.rows.map(\.syncVersion) == [3, 2, 1])
        #expect(contents.rows[1].sample.metadata?[HKMetadataKeySyncIdentifier] as? String == "phone-7")
        #expect(contents.rows[1].content.metadata.isEmpty)
    }

    @Test("Rows that cannot be read are listed with their line; the others are read", arguments: [
        ("{\"type\":\"stepCount\",\"start\":\"2026-11-20\",\"value\":1,\"syncVersion\":2}", "a sync version needs a sync identifier"),
        ("{\"type\":\"stepCount\",\"start\":\"2026-11-20\",\"value\":1,\"metadata\":{\"k\":[1]}}", "the metadata value of 'k' is neither text nor a number"),
        ("{\"type\":\"stepCount\",\"start\":\"2026-11-20\",\"value\":1,\"metadata\":\"[1]\"}", "the metadata is not a JSON object"),
        ("{\"type\":\"stepCount\",\"start\":\"2026-11-20\",\"value\":1,\"metadata\":{\"HKMetadataKeySyncIdentifier\":5}}",
         "HKMetadataKeySyncIdentifier must be text"),
        ("{\"type\":\"stepCount\",\"start\":\"oops\",\"value\":1}", "missing or invalid start date"),
    ])
    func refusedRows(_ bad: String, _ reason: String) throws {
        let good = "{\"type\":\"stepCount\",\"start\":\"2026-11-20T10:00:00Z\",\"value\":3}"
        let contents = try parser.read([good, bad, good].joined(separator: "\n"), format: .jsonLines)
        #expect(contents.rows.map(\.line) == [1, 3])
        #expect(contents.refused == [SampleFileError(line: 2, reason: reason)])
    }
}
