@testable import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// Runs of plain records (``RecordRun``): cut where their content says, kept by the store once all their records are
/// stored, and recognised by the next import without a lookup, unless a stored sample was deleted since.
@Suite("Apple Health import: runs of records found stored whole", .timeLimit(.minutes(10)))
struct RecordRunTests {
    static let steps = HKQuantityTypeIdentifier.stepCount.rawValue

    /// Minute `index` after 2020-09-13 12:26:40 UTC, as an export writes a date.
    static func minute(_ index: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return formatter.string(from: Date(timeIntervalSince1970: 1_600_000_000 + Double(index) * 60))
    }

    /// `count` step records, one a minute, their values from `seed`; `replace` gives other record texts by position.
    static func export(_ count: Int, seed: UInt64 = 1, replace: [Int: (inout AppleHealthExportGenerator) -> Void] = [:]) -> String {
        var random = SplitMix64(seed: seed)
        var export = AppleHealthExportGenerator()
        for index in 0..<count {
            if let write = replace[index] {
                write(&export)
                continue
            }
            export.record(type: steps, unit: "count", value: "\(random.int(1...400))", start: minute(index), end: minute(index))
        }
        return export.document()
    }

    /// The keyed fingerprints of the runs an export's top-level records make in `store` (every record a plain one, any
    /// other element ending a run).
    static func runKeys(_ text: String, _ store: HKHealthStore) async throws -> [Data] {
        let runs = try await store.storedImportRuns(domain: AppleHealthImporter.runDomain)
        var keys: [Data] = []
        var run = RecordRun()
        let stream = try PrologStrippedStream.open(DataByteSource(Data(text.utf8)))
        defer { stream.close() }
        try ExportXMLReader().read(stream) { element in
            guard element.name == "Record", let type = element["type"] else {
                // Anything else ends the run.
                if run.count > 0 { keys.append(runs.key(run.fingerprint())) }
                run = RecordRun()
                return
            }
            if run.add(element.contentDigest, type: type) {
                keys.append(runs.key(run.fingerprint()))
                run = RecordRun()
            }
        }
        if run.count > 0 { keys.append(runs.key(run.fingerprint())) }
        return keys
    }

    static func kept(_ store: HKHealthStore) async throws -> HKHealthStore.StoredImportRuns {
        try await store.storedImportRuns(domain: AppleHealthImporter.runDomain)
    }

    // MARK: Cutting

    @Test("A run ends on a content boundary once it holds the fewest records, and at the most records otherwise")
    func cuts() {
        let boundary = [UInt8](repeating: 0, count: 32)
        let other = [UInt8](repeating: 0xFF, count: 32)
        #expect(RecordRun.isBoundary(boundary) && !RecordRun.isBoundary(other))
        var run = RecordRun()
        for index in 1..<RecordRun.minimumCount {
            let ended = run.add(boundary, type: "a")
            #expect(!ended, "ended at \(index)")
        }
        let endsAtMinimum = run.add(boundary, type: "a")
        #expect(endsAtMinimum && run.count == RecordRun.minimumCount)
        run = RecordRun()
        var endedEarly = 0
        for index in 1..<RecordRun.maximumCount where run.add(other, type: index.isMultiple(of: 2) ? "a" : "b") { endedEarly += 1 }
        let endsAtMaximum = run.add(other, type: "b")
        #expect(endedEarly == 0 && endsAtMaximum && run.count == RecordRun.maximumCount)
        // Types are counted in the order first met.
        #expect(run.types.map(\.identifier) == ["b", "a"] && run.types.map(\.count).reduce(0, +) == RecordRun.maximumCount)
    }

    @Test("Records inserted into a long list change only the runs around them: the others are cut and fingerprinted as before")
    func resynchronises() {
        func fingerprints(_ digests: [[UInt8]]) -> [[UInt8]] {
            var result: [[UInt8]] = []
            var run = RecordRun()
            for digest in digests where run.add(digest, type: "a") {
                result.append(run.fingerprint())
                run = RecordRun()
            }
            if run.count > 0 { result.append(run.fingerprint()) }
            return result
        }
        for seed in UInt64(1)...20 {
            var random = SplitMix64(seed: seed)
            let digests = (0..<30_000).map { _ in random.bytes(32) }
            let before = fingerprints(digests)
            var changed = digests
            let position = random.int(1_000...25_000)
            changed.insert(contentsOf: (0..<random.int(1...300)).map { _ in random.bytes(32) }, at: position)
            let after = Set(fingerprints(changed))
            let lost = before.filter { !after.contains($0) }
            #expect(before.count > 5)
            #expect(lost.count <= 2, "seed \(seed): \(lost.count) of \(before.count) runs lost")
        }
    }

    // MARK: Importing

    @Test("A first import keeps every run of the file; importing it again finds them all and commits nothing")
    func keptAndRecognised() async throws {
        let text = Self.export(5_000)
        let url = try AppleHealthImporterTests.write(text)
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        let first = try await AppleHealthImporter(batchSize: 700).importExport(at: url, into: store)
        #expect(first.importedCount + first.alreadyStoredCount == 5_000)
        let expected = try await Self.runKeys(text, store)
        #expect(expected.count >= 2)
        let kept = try await Self.kept(store)
        #expect(kept.count == expected.count && expected.allSatisfy(kept.contains))

        let second = try await AppleHealthImporter(batchSize: 700).importExport(at: url, into: store)
        #expect(second.importedCount == 0 && second.batches == 0)
        #expect(second.alreadyStored == [Self.steps: first.importedCount + first.alreadyStoredCount])
        #expect(second.skipped == first.skipped)
        #expect(try await Self.kept(store).count == expected.count)
    }

    @Test("Runs the store keeps are counted as stored without a lookup; after a deletion they are not trusted")
    func keptRunsAreNotLookedUp() async throws {
        let text = Self.export(3_000, seed: 2)
        let url = try AppleHealthImporterTests.write(text)
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        // Some other sample with a sync identifier, so that the import looks records up.
        let other = HKQuantitySample(type: HKQuantityType(.bodyMass), quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 70),
                                     start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 0),
                                     metadata: [HKMetadataKeySyncIdentifier: "scale-1", HKMetadataKeySyncVersion: 1])
        try await store.save(other)
        // The file's runs, kept as if an import had stored them (none of its records is stored).
        let read = try await Self.kept(store)
        #expect(try await store.recordImportRuns(try await Self.runKeys(text, store), as: read))

        let trusted = try await AppleHealthImporter(batchSize: 500).importExport(at: url, into: store)
        #expect(trusted.alreadyStored == [Self.steps: 3_000] && trusted.importedCount == 0)
        #expect(try await AppleHealthImporterTests.quantities(store, .stepCount).isEmpty)

        // A sample with a sync identifier deleted: the kept runs no longer hold, and the records are stored.
        try await store.delete(other)
        #expect(try await Self.kept(store).count == 0)
        let stored = try await AppleHealthImporter(batchSize: 500).importExport(at: url, into: store)
        #expect(stored.imported[Self.steps] ?? 0 > 2_900 && stored.importedCount + stored.alreadyStoredCount == 3_000)
        #expect(try await AppleHealthImporterTests.quantities(store, .stepCount).count == stored.imported[Self.steps])
    }

    @Test("A sample deleted after an import is stored again by the next import of the same file, which then keeps its runs again")
    func deletedSampleRestored() async throws {
        let text = Self.export(4_000, seed: 3)
        let url = try AppleHealthImporterTests.write(text)
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        let first = try await AppleHealthImporter(batchSize: 600).importExport(at: url, into: store)
        let samples = try await AppleHealthImporterTests.quantities(store, .stepCount)
        #expect(samples.count == first.imported[Self.steps])
        try await store.delete(samples[samples.count / 2])
        #expect(try await Self.kept(store).count == 0)

        let again = try await AppleHealthImporter(batchSize: 600).importExport(at: url, into: store)
        #expect(again.imported == [Self.steps: 1])
        #expect(again.alreadyStored[Self.steps] == first.importedCount + first.alreadyStoredCount - 1)
        #expect(try await AppleHealthImporterTests.quantities(store, .stepCount).count == samples.count)
        let expected = try await Self.runKeys(text, store)
        let kept = try await Self.kept(store)
        #expect(kept.count == expected.count && expected.allSatisfy(kept.contains))
    }

    @Test("A run with a record left out (unreadable, or refused by the store) is not kept: the next import reports it again",
          arguments: [false, true])
    func incompleteRunsNotKept(refused: Bool) async throws {
        let position = 1_500
        let text = Self.export(3_000, seed: 4, replace: [
            position: { export in
                if refused {
                    // Finite in kilometres, not in metres (the type's unit): the store refuses it.
                    export.record(type: HKQuantityTypeIdentifier.distanceWalkingRunning.rawValue, unit: "km", value: "1.7e308",
                                  start: Self.minute(position), end: Self.minute(position))
                } else {
                    export.record(type: Self.steps, unit: "count", value: "many", start: Self.minute(position), end: Self.minute(position))
                }
            }
        ])
        let url = try AppleHealthImporterTests.write(text)
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        let first = try await AppleHealthImporter(batchSize: 400).importExport(at: url, into: store)
        #expect(first.skipped.filter { $0.key.hasPrefix(refused ? "refused by the store" : "no numeric value for") }.values.reduce(0, +) == 1,
                "\(first.skipped)")
        let expected = try await Self.runKeys(text, store)
        let kept = try await Self.kept(store)
        // The run holding the record (and, for a refusal, any other run with records in its batch) is missing.
        #expect(kept.count < expected.count && kept.count >= expected.count - 3)
        #expect(kept.count == expected.filter(kept.contains).count)

        let again = try await AppleHealthImporter(batchSize: 400).importExport(at: url, into: store)
        #expect(again.importedCount == 0 && again.skipped == first.skipped)
        #expect(again.alreadyStored == [Self.steps: 2_999])
    }

    @Test("A record refused in a batch that also carries an activity summary (saved in a task) leaves its batch's runs out")
    func refusedBesideSummary() async throws {
        let position = 300
        let text = Self.export(600, seed: 7, replace: [
            position: { export in
                export.record(type: HKQuantityTypeIdentifier.distanceWalkingRunning.rawValue, unit: "km", value: "1.7e308",
                              start: Self.minute(position), end: Self.minute(position))
                // Ends the run, and puts the batch on the task path.
                export.raw(#" <ActivitySummary dateComponents="2020-09-13" activeEnergyBurned="300" activeEnergyBurnedGoal="400" "#
                           + #"activeEnergyBurnedUnit="kcal"/>"#)
            }
        ])
        let url = try AppleHealthImporterTests.write(text)
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        // One batch: every record and the summary.
        let first = try await AppleHealthImporter(batchSize: 10_000).importExport(at: url, into: store)
        #expect(first.batches == 1 && first.imported[HKActivitySummaryTypeIdentifier] == 1)
        #expect(first.skipped.filter { $0.key.hasPrefix("refused by the store") }.values.reduce(0, +) == 1, "\(first.skipped)")
        #expect(try await Self.runKeys(text, store).count >= 2)
        #expect(try await Self.kept(store).count == 0)

        let again = try await AppleHealthImporter(batchSize: 10_000).importExport(at: url, into: store)
        #expect(again.skipped == first.skipped)
        #expect(again.alreadyStored[Self.steps] == 599 && again.importedCount == 0)
    }

    @Test("An export of every kind of element imported again with its runs recognised reports what the lookups report")
    func mixedExportSameReport() async throws {
        // Plain records among elements that end runs: correlations (their members also listed as top-level records), records
        // with their own sync identifiers, and records of a type correlations hold (held until the end).
        var export = AppleHealthExportGenerator()
        var random = SplitMix64(seed: 6)
        for index in 0..<4_000 {
            export.record(type: Self.steps, unit: "count", value: "\(random.int(1...400))", start: Self.minute(index), end: Self.minute(index))
            if index % 997 == 0 {
                export.raw(CorrelationTwinTests.correlation(at: Self.minute(index), "12\(index % 10)", "80"))
            }
            if index % 1_303 == 0 {
                export.record(type: HKQuantityTypeIdentifier.heartRate.rawValue, unit: "count/min", value: "70", start: Self.minute(index),
                              end: Self.minute(index), metadata: [(HKMetadataKeySyncIdentifier, "app-\(index)"), (HKMetadataKeySyncVersion, "1")])
            }
            if index % 1_777 == 0 {
                export.record(type: HKQuantityTypeIdentifier.dietaryWater.rawValue, unit: "mL", value: "250", start: Self.minute(index),
                              end: Self.minute(index))
            }
        }
        let url = try AppleHealthImporterTests.write(export.document())
        defer { AppleHealthImporterTests.remove(url) }
        let recognising = AppleHealthImporterTests.ownerStore()
        let lookingUp = AppleHealthImporterTests.ownerStore()
        let first = try await AppleHealthImporter(batchSize: 500).importExport(at: url, into: recognising)
        #expect(try await AppleHealthImporter(batchSize: 500).importExport(at: url, into: lookingUp) == first)
        #expect(try await Self.kept(recognising).count >= 2)
        // The other store forgets its runs: its next import looks every record up.
        let forgotten = try await Self.kept(lookingUp)
        #expect(try await lookingUp.recordImportRuns([], as: forgotten))
        #expect(try await Self.kept(lookingUp).count == 0)

        let recognised = try await AppleHealthImporter(batchSize: 500).importExport(at: url, into: recognising)
        let lookedUp = try await AppleHealthImporter(batchSize: 500).importExport(at: url, into: lookingUp)
        #expect(recognised.alreadyStored == lookedUp.alreadyStored && recognised.imported == lookedUp.imported)
        #expect(recognised.skipped == lookedUp.skipped && recognised.duplicates == lookedUp.duplicates)
        #expect(recognised.importedCount == 0 && recognised.alreadyStoredCount == first.importedCount + first.alreadyStoredCount)
        #expect(try await AppleHealthImporterTests.quantities(recognising, .stepCount).count == 4_000)
    }
}
