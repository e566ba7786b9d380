import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

/// `import_run` (v23-import-runs): an importer's runs of records found all stored, by keyed fingerprint, holding only
/// while no stored quantity or category sample with a sync identifier was deleted or had its sync columns changed.
@Suite("Import runs: kept by keyed fingerprint, dropped by a deletion", .timeLimit(.minutes(10)))
struct ImportRunsTests {
    static let revision = BulkWriteTests.revision
    static let domain = "test-import"

    static func keys(_ runs: HKHealthStore.StoredImportRuns, _ count: Int, seed: UInt8 = 0) -> [Data] {
        (0..<count).map { runs.key([seed, UInt8(truncatingIfNeeded: $0)]) }
    }

    @Test("Recorded runs are read back by their keyed fingerprints, in place of the domain's runs before, beside another domain's")
    func recordAndRead() async throws {
        let store = TestStores.owner(TemporaryFolder())
        let empty = try await store.storedImportRuns(domain: Self.domain)
        #expect(empty.count == 0)
        let first = Self.keys(empty, 5)
        #expect(try await store.recordImportRuns(first, as: empty))
        let read = try await store.storedImportRuns(domain: Self.domain)
        #expect(read.count == 5 && first.allSatisfy(read.contains))
        #expect(!read.contains(read.key([9, 9])))

        let other = try await store.storedImportRuns(domain: "other-import")
        #expect(other.count == 0)
        #expect(try await store.recordImportRuns(Self.keys(other, 2, seed: 1), as: other))
        // The next import of the domain keeps its own runs only: the first ones go, the other domain's stay.
        let second = Self.keys(read, 3, seed: 2)
        #expect(try await store.recordImportRuns(second, as: read))
        let again = try await store.storedImportRuns(domain: Self.domain)
        #expect(again.count == 3 && second.allSatisfy(again.contains) && !again.contains(first[0]))
        #expect(try await store.storedImportRuns(domain: "other-import").count == 2)
    }

    @Test("Fingerprints are kept keyed with the store's key: the same fingerprint is kept differently by another store")
    func keyed() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let another = TestStores.owner(TemporaryFolder())
        let fingerprint = [UInt8](repeating: 7, count: 32)
        let runs = try await store.storedImportRuns(domain: Self.domain)
        let key = runs.key(fingerprint)
        #expect(key != (try await another.storedImportRuns(domain: Self.domain)).key(fingerprint))
        #expect(key.count == 16 && key != Data(fingerprint.prefix(16)))
        try await store.recordImportRuns([key], as: runs)
        let kept = try await ValueBlockTests.integer(folder, "SELECT count(*) FROM import_run WHERE fingerprint = ?", [key])
        #expect(kept == 1)
    }

    @Test("Deleting a stored quantity or category sample with a sync identifier drops every run; one without, or a workout, drops none")
    func deletionDropsRuns() async throws {
        let store = TestStores.owner(TemporaryFolder())
        let synced = QueuedSaveTests.steps("a", version: 1, value: 10)
        let plain = Samples.steps(20, at: 3_600)
        let category = HKCategorySample(type: HKCategoryType(.mindfulSession), value: HKCategoryValue.notApplicable.rawValue,
                                        start: Samples.reference, end: Samples.reference.addingTimeInterval(600),
                                        metadata: [HKMetadataKeySyncIdentifier: "m", HKMetadataKeySyncVersion: 1])
        let workout = HKWorkout(activityType: .walking, start: Samples.reference, end: Samples.reference.addingTimeInterval(600),
                                workoutEvents: nil, totalEnergyBurned: nil, totalDistance: nil,
                                metadata: [HKMetadataKeySyncIdentifier: "w", HKMetadataKeySyncVersion: 1])
        _ = try await store.save([synced, plain, category, workout], recordedAs: Array(repeating: Self.revision, count: 4))

        func keepThree() async throws {
            let runs = try await store.storedImportRuns(domain: Self.domain)
            #expect(try await store.recordImportRuns(Self.keys(runs, 3), as: runs))
            #expect(try await store.storedImportRuns(domain: Self.domain).count == 3)
        }
        try await keepThree()
        try await store.delete(plain)
        try await store.delete(workout)
        #expect(try await store.storedImportRuns(domain: Self.domain).count == 3)
        try await store.delete(synced)
        #expect(try await store.storedImportRuns(domain: Self.domain).count == 0)
        try await keepThree()
        try await store.delete(category)
        #expect(try await store.storedImportRuns(domain: Self.domain).count == 0)
    }

    @Test("A replacement by a higher sync version drops every run (it deletes the stored sample)")
    func replacementDropsRuns() async throws {
        let store = TestStores.owner(TemporaryFolder())
        _ = try await store.save([QueuedSaveTests.steps("a", version: 1, value: 10)], recordedAs: [Self.revision])
        let runs = try await store.storedImportRuns(domain: Self.domain)
        try await store.recordImportRuns(Self.keys(runs, 2), as: runs)
        // The same version again stores nothing and drops nothing.
        _ = try await store.save([QueuedSaveTests.steps("a", version: 1, value: 10)], recordedAs: [Self.revision])
        #expect(try await store.storedImportRuns(domain: Self.domain).count == 2)
        _ = try await store.save([QueuedSaveTests.steps("a", version: 2, value: 11)], recordedAs: [Self.revision])
        #expect(try await store.storedImportRuns(domain: Self.domain).count == 0)
    }

    @Test("Runs found stored before a deletion are not kept after it: the deletion may have taken one of their records")
    func deletionBetweenReadAndRecord() async throws {
        let store = TestStores.owner(TemporaryFolder())
        let synced = QueuedSaveTests.steps("a", version: 1, value: 10)
        _ = try await store.save([synced], recordedAs: [Self.revision])
        let before = try await store.storedImportRuns(domain: Self.domain)
        try await store.recordImportRuns(Self.keys(before, 2), as: before)
        let read = try await store.storedImportRuns(domain: Self.domain)
        #expect(read.count == 2)
        try await store.delete(synced)
        #expect(try await store.recordImportRuns(Self.keys(read, 4, seed: 3), as: read) == false)
        let after = try await store.storedImportRuns(domain: Self.domain)
        #expect(after.count == 0)
        // Read again after the deletion, they are kept.
        #expect(try await store.recordImportRuns(Self.keys(after, 4, seed: 3), as: after))
        #expect(try await store.storedImportRuns(domain: Self.domain).count == 4)
    }

    @Test("No run is kept after the bulk write lost a transaction: saves reported as saved were rolled back")
    func lostTransaction() async throws {
        let store = TestStores.owner(TemporaryFolder())
        let read = try await store.storedImportRuns(domain: Self.domain)
        let kept = try await store.withBulkWrite(BulkWriteTests.hour) {
            // Saved in the shared transaction, which SQLite then ends itself (as on a full disk): the save is lost.
            _ = try await store.save([QueuedSaveTests.steps("lost", version: 1, value: 1)], recordedAs: [Self.revision])
            try await store.engine.database().writer.writeWithoutTransaction { db in try db.rollback() }
            _ = try await store.save([QueuedSaveTests.steps("kept", version: 1, value: 2)], recordedAs: [Self.revision])
            return try await store.recordImportRuns(Self.keys(read, 2), as: read)
        }
        #expect(kept == false)
        #expect(try await QueuedSaveTests.storedSteps(store) == ["kept": 2])
        #expect(try await store.storedImportRuns(domain: Self.domain).count == 0)
        // The next bulk write starts with nothing lost.
        let again = try await store.storedImportRuns(domain: Self.domain)
        let keptNow = try await store.withBulkWrite(BulkWriteTests.hour) { try await store.recordImportRuns(Self.keys(again, 2), as: again) }
        #expect(keptNow)
        #expect(try await store.storedImportRuns(domain: Self.domain).count == 2)
    }

    @Test("Without its count's row, no run holds: none is read, and recording starts the count again without keeping any")
    func missingCount() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let read = try await store.storedImportRuns(domain: Self.domain)
        try await store.recordImportRuns(Self.keys(read, 2), as: read)
        try await ValueBlockTests.edit(folder) { db in
            try db.execute(sql: "DELETE FROM store_info WHERE key = '\(HealthDatabase.importRunGenerationKey)'")
        }
        let reopened = TestStores.owner(folder)
        let missing = try await reopened.storedImportRuns(domain: Self.domain)
        #expect(missing.count == 0)
        #expect(try await reopened.recordImportRuns(Self.keys(missing, 2), as: missing) == false)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM import_run") == 0)
        let counted = try await reopened.storedImportRuns(domain: Self.domain)
        #expect(try await reopened.recordImportRuns(Self.keys(counted, 2), as: counted))
        #expect(try await reopened.storedImportRuns(domain: Self.domain).count == 2)
    }

    @Test("Only the owner reads or records runs")
    func ownerOnly() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let runs = try await owner.storedImportRuns(domain: Self.domain)
        let app = TestStores.app(folder, bundle: "org.example.app")
        await #expect(throws: HKError.self) { try await app.storedImportRuns(domain: Self.domain) }
        do {
            try await app.recordImportRuns(Self.keys(runs, 1), as: runs)
            Issue.record("an app recorded runs")
        } catch let error as HKError {
            #expect(error.code == .errorAuthorizationDenied)
        }
    }

    @Test("A store from before v23 gets the table, the count and both triggers when it is opened, its samples unchanged")
    func migration() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let synced = QueuedSaveTests.steps("a", version: 1, value: 10)
        _ = try await store.save([synced, Samples.steps(20, at: 3_600)], recordedAs: [Self.revision, Self.revision])
        try await ValueBlockTests.edit(folder) { db in
            try db.execute(sql: """
                DROP TRIGGER sample_synced_deleted;
                DROP TRIGGER sample_synced_changed;
                DROP TABLE import_run;
                DELETE FROM store_info WHERE key = '\(HealthDatabase.importRunGenerationKey)';
                DELETE FROM grdb_migrations WHERE identifier = 'v23-import-runs';
                """)
        }
        let reopened = TestStores.owner(folder)
        let runs = try await reopened.storedImportRuns(domain: Self.domain)
        #expect(runs.count == 0)
        let schema = "SELECT count(*) FROM sqlite_schema WHERE name IN ('import_run', 'sample_synced_deleted', 'sample_synced_changed')"
        #expect(try await ValueBlockTests.integer(folder, schema) == 3)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM sample") == 2)
        try await reopened.recordImportRuns(Self.keys(runs, 1), as: runs)
        try await reopened.delete(synced)
        #expect(try await reopened.storedImportRuns(domain: Self.domain).count == 0)
        #expect(try await ValueBlockTests.integer(folder, "SELECT CAST(value AS INTEGER) FROM store_info WHERE key = 'import_run_generation'") == 1)
    }
}
