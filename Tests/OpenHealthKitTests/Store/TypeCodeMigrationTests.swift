import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

/// v20-type-codes: `sample.type` holds a small integer code from `sample_type` instead of the
/// identifier text. A store written at v19 (every kind of sample, value blocks, deletions, the
/// "Recently deleted" list, a source order) migrates with every row's id, anchor and record, and
/// answers every query as it did; new stores never hold text types; a type never stored reads empty.
@Suite("Sample types stored as integer codes: the v20 migration keeps every answer")
struct TypeCodeMigrationTests {
    static let watch = HKSourceRevision(source: HKSource(name: "Watch", bundleIdentifier: "com.example.watch"), version: "10",
                                        productType: "Watch7,1",
                                        operatingSystemVersion: OperatingSystemVersion(majorVersion: 11, minorVersion: 0, patchVersion: 0))
    static let phone = HKSourceRevision(source: HKSource(name: "Phone", bundleIdentifier: "com.example.phone"), version: "17",
                                        productType: "iPhone15,2",
                                        operatingSystemVersion: OperatingSystemVersion(majorVersion: 17, minorVersion: 0, patchVersion: 0))
    static let steps = HKQuantityType(.stepCount)
    static let heartRate = HKQuantityType(.heartRate)

    static func integer(_ folder: TemporaryFolder, _ sql: String) async throws -> Int {
        try await ValueBlockTests.integer(folder, sql)
    }

    static func strings(_ folder: TemporaryFolder, _ sql: String) async throws -> [String] {
        let queue = try DatabaseQueue(path: folder.database.path)
        defer { try? queue.close() }
        return try await queue.read { db in try String.fetchAll(db, sql: sql) }
    }

    /// Saves every kind of sample, takes an anchor per type, then deletes and saves more.
    static func fill(_ store: HKHealthStore) async throws -> (anchors: [HKQueryAnchor], workout: HKWorkout) {
        // Quantities in value blocks (one batch of each type per source), two sources of steps.
        var random = SplitMix64(seed: 20)
        let heartRates = (0..<300).map { Samples.heartRate(Double(50 + random.below(100)), at: Double($0) * 60, seconds: 30) }
        let watchSteps = (0..<200).map { Samples.steps(Double(random.below(500)), at: Double($0) * 600, minutes: 5) }
        let phoneSteps = (0..<200).map { Samples.steps(Double(random.below(500)), at: Double($0) * 600 + 60, minutes: 8) }
        try await store.save(heartRates, recordedAs: Array(repeating: watch, count: heartRates.count))
        try await store.save(watchSteps, recordedAs: Array(repeating: watch, count: watchSteps.count))
        try await store.save(phoneSteps, recordedAs: Array(repeating: phone, count: phoneSteps.count))
        // A category, a correlation with its members, a workout with its route.
        try await store.save([Samples.sleep(.asleepCore, at: -7_200, minutes: 90), Samples.sleep(.awake, at: -1_800, minutes: 10)])
        let start = Samples.reference
        let systolic = HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic),
                                        quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 121), start: start, end: start)
        let diastolic = HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic),
                                         quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 79), start: start, end: start)
        try await store.save(HKCorrelation(type: HKCorrelationType(.bloodPressure), start: start, end: start, objects: [systolic, diastolic],
                                           metadata: ["Arm": "left"]))
        let workout = HKWorkoutRouteQueryTests.workout()
        try await store.save(workout)
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData(HKWorkoutRouteQueryTests.locations(300))
        _ = try await builder.finishRoute(with: workout, metadata: ["Lap": 1])
        try store.setSourcePriority([phone.source, watch.source], for: steps)

        var anchors: [HKQueryAnchor] = []
        for type in [steps, heartRate] as [HKSampleType] { anchors.append(try await store.runAnchoredQuery(type, anchor: nil).anchor) }
        // Deletions (tombstones and "Recently deleted"), then more saves.
        try await store.delete(Array(watchSteps[10..<20]) + [heartRates[5]])
        let everything = HKQuery.predicateForSamples(withStart: nil, end: nil)
        #expect(try await store.deleteObjects(of: HKCorrelationType(.bloodPressure), predicate: everything) == 1)
        try await store.save([Samples.steps(777, at: 90_000), Samples.heartRate(99, at: 90_000)])
        return (anchors, workout)
    }

    /// Everything the store answers, as text to compare (record contents, ids and anchors included).
    static func answers(_ store: HKHealthStore, anchors: [HKQueryAnchor], workout: HKWorkout) async throws -> [String] {
        var lines: [String] = []
        func describe(_ sample: HKSample) -> String {
            var line = "\(sample.uuid) \(sample.sampleType.identifier) \(sample.startDate.timeIntervalSinceReferenceDate)"
                + " \(sample.endDate.timeIntervalSinceReferenceDate) \(sample.sourceRevision.source.bundleIdentifier)"
            if let quantity = sample as? HKQuantitySample { line += " \(quantity.quantity)" }
            if let category = sample as? HKCategorySample { line += " value \(category.value)" }
            if let correlation = sample as? HKCorrelation { line += " members \(correlation.objects.map(\.uuid.uuidString).sorted())" }
            if let workout = sample as? HKWorkout { line += " activity \(workout.workoutActivityType.rawValue)" }
            if let route = sample as? HKWorkoutRoute { line += " locations \(route.count)" }
            if let metadata = sample.metadata { line += " metadata \(metadata.keys.sorted())" }
            return line
        }
        let types: [HKSampleType] = [steps, heartRate, HKQuantityType(.bloodPressureSystolic), HKCategoryType(.sleepAnalysis),
                                     HKCorrelationType(.bloodPressure), HKWorkoutType.workoutType(), HKSeriesType.workoutRoute()]
        let byStart = [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]
        for type in types {
            lines += try await store.runSampleQuery(type, sort: byStart).map(describe)
            lines.append("sources \(type.identifier) \(try await store.runSourceQuery(type).map(\.bundleIdentifier).sorted())")
        }
        let window = HKQuery.predicateForSamples(withStart: Samples.reference.addingTimeInterval(3_000),
                                                 end: Samples.reference.addingTimeInterval(30_000))
        let fromWatch = HKQuery.predicateForObjects(from: watch.source)
        lines += try await store.runSampleQuery(steps, predicate: window, limit: 7, sort: byStart).map { "window " + describe($0) }
        let watchWindow = NSCompoundPredicate(andPredicateWithSubpredicates: [window, fromWatch])
        lines += try await store.runSampleQuery(heartRate, predicate: watchWindow, sort: byStart).map { "watch " + describe($0) }
        lines += try await store.runSampleQuery(HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workout))
            .map { "route of workout " + describe($0) }
        for (type, anchor) in zip([steps, heartRate], anchors) {
            let (added, deleted, next) = try await store.runAnchoredQuery(type, anchor: anchor)
            let deletedUUIDs = deleted.map(\.uuid.uuidString).sorted()
            lines.append("anchored \(type.identifier) added \(added.map(describe)) deleted \(deletedUUIDs) \(next)")
            let (all, none, _) = try await store.runAnchoredQuery(type, anchor: nil)
            lines.append("anchored from nil \(type.identifier) \(all.count) \(none.count)")
        }
        let sum = try await store.runStatisticsQuery(steps, options: [.cumulativeSum, .separateBySource])
        lines.append("steps sum \(String(describing: sum.sumQuantity())) by watch \(String(describing: sum.sumQuantity(for: watch.source)))")
        let heart = try await store.runStatisticsQuery(heartRate, options: [.discreteAverage, .discreteMin, .discreteMax])
        lines.append("heart \(String(describing: heart.averageQuantity())) \(String(describing: heart.minimumQuantity()))"
                     + " \(String(describing: heart.maximumQuantity()))")
        lines.append("priority \(try store.sourcePriority(for: steps).map(\.bundleIdentifier))")
        lines.append("types \(try await store.sampleTypesWithSamples().map(\.identifier))")
        for item in try await store.recentlyDeletedItems() {
            lines.append("recently deleted \(item.id) " + describe(item.sample))
        }
        return lines
    }

    /// Writes a store at v19 with the contents of `source` (written by this version): `sample`
    /// as v19 had it, its type the identifier text, and every other table copied as it is.
    static func writeV19Store(from source: TemporaryFolder, to folder: TemporaryFolder) async throws {
        try FileManager.default.copyItem(at: source.keyFile, to: folder.keyFile)
        let queue = try DatabaseQueue(path: folder.database.path)
        try HealthDatabase.migrator.migrate(queue, upTo: "v19-devices")
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "ATTACH DATABASE ? AS legacy", arguments: [source.database.path])
            let tables = try String.fetchAll(db, sql: """
                SELECT name FROM legacy.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                AND name NOT IN ('sample', 'sample_type', 'grdb_migrations', 'metadata_index', 'metadata_key', 'import_run')
                """)
            try db.inTransaction {
                try db.execute(sql: "DELETE FROM store_info")
                for table in tables { try db.execute(sql: "INSERT INTO main.\(table) SELECT * FROM legacy.\(table)") }
                try db.execute(sql: """
                    INSERT INTO sample (id, uuid, type, kind, start, "end", source_id, parent_id, activity_type, anchor, sync_id,
                                        sync_version, sealed, block_id, block_index)
                      SELECT s.id, s.uuid, t.identifier, s.kind, s.start, s."end", s.source_id, s.parent_id, s.activity_type, s.anchor,
                             s.sync_id, s.sync_version, s.sealed, s.block_id, s.block_index
                      FROM legacy.sample s JOIN legacy.sample_type t ON t.id = s.type;
                    INSERT INTO metadata_index (sample_id, key_hash, value_hash)
                      SELECT m.sample_id, k.hash, nullif(m.value_hash, X'') FROM legacy.metadata_index m JOIN legacy.metadata_key k ON k.id = m.key_id;
                    """)
                return .commit
            }
            try db.execute(sql: "DETACH DATABASE legacy")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        try queue.close()
    }

    /// The rows of `sample` with every column, one line each, types mapped back to identifiers.
    static let rowsSQL = """
        SELECT s.id || '|' || hex(s.uuid) || '|' || t.identifier || '|' || s.kind || '|' || s.start || '|' || s."end" || '|' || s.source_id
               || '|' || ifnull(s.parent_id, '') || '|' || ifnull(s.activity_type, '') || '|' || s.anchor || '|' || ifnull(hex(s.sync_id), '')
               || '|' || ifnull(s.sync_version, '') || '|' || hex(s.sealed) || '|' || ifnull(s.block_id, '') || '|' || ifnull(s.block_index, '')
        FROM sample s JOIN sample_type t ON t.id = s.type ORDER BY s.id
        """
    static let indexesSQL = "SELECT name || ' ' || ifnull(sql, '') FROM sqlite_schema WHERE tbl_name = 'sample' AND type = 'index' ORDER BY name"

    @Test("A v19 store migrates: same rows, ids, anchors and indexes; every query, statistic, source order and restore the same")
    func migratesWithSameAnswers() async throws {
        let source = TemporaryFolder()
        let store = TestStores.owner(source)
        let (anchors, workout) = try await Self.fill(store)
        // The phone's steps stay in their block (deleting a sample dissolves its block: the watch's read from their records).
        #expect(try await Self.integer(source, "SELECT count(*) FROM sample WHERE block_id IS NOT NULL") == 200)
        #expect(try await Self.integer(source, "SELECT count(*) FROM recently_deleted WHERE parent_id IS NULL") == 12)
        #expect(try await Self.integer(source, "SELECT count(*) FROM deleted_object") > 10)
        let expected = try await Self.answers(store, anchors: anchors, workout: workout)
        let expectedRows = try await Self.strings(source, Self.rowsSQL)
        #expect(expectedRows.count == 695)

        let folder = TemporaryFolder()
        try await Self.writeV19Store(from: source, to: folder)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE typeof(type) <> 'text'") == 0)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sqlite_schema WHERE name = 'sample_type'") == 0)
        let v19Indexes = try await Self.strings(folder, Self.indexesSQL)
        #expect(v19Indexes.count == 7)

        let migrated = TestStores.owner(folder)
        let answers = try await Self.answers(migrated, anchors: anchors, workout: workout)
        #expect(answers.count == expected.count)
        for (got, want) in zip(answers, expected) { #expect(got == want) }
        #expect(try await Self.integer(folder, "SELECT count(*) FROM grdb_migrations WHERE identifier = 'v20-type-codes'") == 1)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE typeof(type) <> 'integer'") == 0)
        #expect(try await Self.strings(folder, Self.rowsSQL) == expectedRows)
        // Vacuumed when opened: the old table's pages are not kept as free pages.
        #expect(try await Self.integer(folder, "SELECT count(*) FROM store_info WHERE key = 'vacuum_pending'") == 0)
        #expect(try await Self.integer(folder, "SELECT freelist_count FROM pragma_freelist_count") == 0)
        // The same indexes (names and definitions) but `sample_block`, which v22-leaner-indexes drops, and the foreign
        // keys to `sample` still hold and still cascade.
        #expect(try await Self.strings(folder, Self.indexesSQL) == v19Indexes.filter { !$0.hasPrefix("sample_block ") })
        #expect(v19Indexes.contains { $0.hasPrefix("sample_block ") })
        #expect(try await Self.strings(folder, "SELECT \"table\" FROM pragma_foreign_key_check").isEmpty)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM route_block") > 0)

        // Restoring from "Recently deleted" and deleting again behave the same on both stores.
        for restoring in [store, migrated] {
            let items = try await restoring.recentlyDeletedItems()
            try await restoring.restoreRecentlyDeleted(items.map(\.id))
            let routes = try await restoring.runSampleQuery(HKSeriesType.workoutRoute())
            try await restoring.delete(routes)
        }
        #expect(try await Self.integer(folder, "SELECT count(*) FROM route_block") == 0)
        func restoredShape(_ store: HKHealthStore) async throws -> [String] {
            var shape: [String] = []
            for type in [Self.steps, Self.heartRate, HKQuantityType(.bloodPressureDiastolic)] {
                let samples = try await store.runSampleQuery(type)
                shape += samples.compactMap { ($0 as? HKQuantitySample).map { "\(type.identifier) \($0.startDate) \($0.quantity)" } }.sorted()
            }
            shape.append("pressure \(try await store.runSampleQuery(HKCorrelationType(.bloodPressure)).count)")
            let sum = try await store.runStatisticsQuery(Self.steps, options: .cumulativeSum)
            shape.append("sum \(String(describing: sum.sumQuantity()))")
            shape.append("recently deleted \(try await store.recentlyDeletedItems().map(\.sample.sampleType.identifier))")
            return shape
        }
        #expect(try await restoredShape(migrated) == (try await restoredShape(store)))
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE typeof(type) <> 'integer'") == 0)
    }

    @Test("A new store holds codes, one sample_type row per type saved; a type never stored reads empty and gets no code")
    func newStoreAndUnknownType() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.save((0..<50).map { Samples.heartRate(Double(60 + $0), at: Double($0) * 60) } + [Samples.steps(10, at: 0)])
        try await store.save(Samples.sleep(.awake, at: 0, minutes: 5))
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE typeof(type) <> 'integer'") == 0)
        #expect(try await Self.strings(folder, "SELECT identifier FROM sample_type ORDER BY id")
            == [HKQuantityTypeIdentifier.heartRate.rawValue, HKQuantityTypeIdentifier.stepCount.rawValue,
                HKCategoryTypeIdentifier.sleepAnalysis.rawValue])
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE type NOT IN (SELECT id FROM sample_type)") == 0)

        let never = HKQuantityType(.bodyMass)
        #expect(try await store.runSampleQuery(never).isEmpty)
        #expect(try await store.runSampleQuery(never, predicate: HKQuery.predicateForObjects(from: Self.watch.source)).isEmpty)
        let (added, deleted, _) = try await store.runAnchoredQuery(never, anchor: nil)
        #expect(added.isEmpty && deleted.isEmpty)
        #expect(try await store.runSourceQuery(never).isEmpty)
        // As for any type without samples in the range: no statistics.
        await #expect { try await store.runStatisticsQuery(never, options: .discreteAverage) } throws: {
            ($0 as? HKError)?.code == .errorNoData
        }
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample_type") == 3)

        // Deleting every sample of a type keeps its code; saving it again reuses it.
        let steps = try await store.runSampleQuery(Self.steps)
        try await store.delete(steps)
        let stored = try await store.sampleTypesWithSamples().map(\.identifier)
        #expect(!stored.contains(HKQuantityTypeIdentifier.stepCount.rawValue) && stored.contains(HKQuantityTypeIdentifier.heartRate.rawValue))
        try await store.save(Samples.steps(11, at: 60))
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample_type") == 3)
        #expect(try await Self.integer(folder, "SELECT max(type) FROM sample WHERE type = 2") == 2)
        #expect(try await store.runSampleQuery(Self.steps).count == 1)

        // A row can never name a code the map lacks, nor hold an identifier's text (as a process
        // from before v20 that had the store open would write): the foreign key refuses both.
        let queue = try DatabaseQueue(path: folder.database.path)
        #expect(throws: DatabaseError.self) { try queue.write { db in try db.execute(sql: "UPDATE sample SET type = 9999 WHERE type = 2") } }
        #expect(throws: DatabaseError.self) {
            try queue.write { db in try db.execute(sql: "UPDATE sample SET type = ? WHERE type = 2", arguments: [HKQuantityTypeIdentifier.stepCount.rawValue]) }
        }
        #expect(try await store.runSampleQuery(Self.steps).count == 1)
    }
}
