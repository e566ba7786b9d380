@testable import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import GRDB
import OpenHealthKit
import Testing
import TestSupport

/// An import saves its batches from tasks created on the XML reader's Dispatch thread; they are still the bulk write's
/// own saves and share its transaction: another store object on the same file sees none of them until a commit.
@Suite("Apple Health import: its batches share the bulk write's transaction", .timeLimit(.minutes(5)))
struct ImportBulkTransactionTests {
    /// The heart rates another store object (its own connections, as another process's) sees committed.
    static func committed(_ other: HKHealthStore) async throws -> Int {
        try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.heartRate))], sortDescriptors: [], limit: nil)
            .result(for: other).count
    }

    /// `committed(other)`, waited for on the calling (Dispatch) thread: the importer's progress handler runs on one.
    static func committedBlocking(_ other: HKHealthStore) -> Int {
        let seen = Inbox<Int>()
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            seen.append((try? await committed(other)) ?? -1)
            semaphore.signal()
        }
        semaphore.wait()
        return seen.values.first ?? -1
    }

    @Test("With a transaction due only after an hour, no batch is visible to another connection until the import ends")
    func batchesShareTransaction() async throws {
        var export = AppleHealthExportGenerator()
        for minute in 0..<20 {
            let time = String(format: "2020-10-03 07:%02d:00 -0400", minute)
            export.record(type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "\(60 + minute)", start: time, end: time)
        }
        let url = try AppleHealthImporterTests.write(export.document())
        defer { AppleHealthImporterTests.remove(url) }
        let folder = url.deletingLastPathComponent()
        let configuration = HKHealthStore.Configuration(location: .file(folder.appendingPathComponent("health.sqlite")),
                                                        key: .keyFile(folder.appendingPathComponent("health.key")), role: .owner)
        let store = HKHealthStore(configuration: configuration)
        let other = HKHealthStore(configuration: configuration)
        // Opening a store writes (its schema check): `other` is opened before the import holds the writer.
        #expect(try await Self.committed(other) == 0)

        var importer = AppleHealthImporter(batchSize: 3)
        importer.bulkWrite = HKHealthStore.BulkWrite(shortestTransaction: .seconds(3600), longestTransaction: .seconds(3600))
        let seen = Inbox<Int>()
        let report = try await importer.importExport(at: url, into: store) { progress in
            // Each batch saved so far, as another connection sees it: none committed.
            if progress.report.batches > 0 { seen.append(Self.committedBlocking(other)) }
        }
        #expect(report.imported[HKQuantityTypeIdentifier.heartRate.rawValue] == 20)
        #expect(report.batches == 7)
        let during = seen.values
        #expect(during.count >= 6 && during.allSatisfy { $0 == 0 }, "\(during)")
        // The end of the import (of its bulk write) commits them all.
        #expect(try await Self.committed(other) == 20)
    }

    @Test("A batch the store fails to write ends the import with that batch's error: the batches before it stay, none after it is written")
    func failedBatchEndsImport() async throws {
        let failing = 1_000
        let url = try AppleHealthImporterTests.write(RecordRunTests.export(3_000, seed: 5))
        defer { AppleHealthImporterTests.remove(url) }
        let folder = url.deletingLastPathComponent()
        let database = folder.appendingPathComponent("health.sqlite")
        let store = HKHealthStore(configuration: HKHealthStore.Configuration(location: .file(database),
                                                                             key: .keyFile(folder.appendingPathComponent("health.key")),
                                                                             role: .owner))
        #expect(try await store.holdsSamplesWithSyncIdentifiers() == false)
        // The write of record 1,000's row fails (in the batch of records 900-1,199), as a full disk or an I/O error would: an
        // integer overflow is an error (SQLITE_ERROR), not a constraint, which the store reports as a refused sample.
        let start = Date(timeIntervalSince1970: 1_600_000_000 + Double(failing) * 60).timeIntervalSinceReferenceDate
        let queue = try DatabaseQueue(path: database.path)
        try await queue.write { db in
            try db.execute(sql: """
                CREATE TRIGGER test_failing_write BEFORE INSERT ON sample WHEN NEW.start = \(start)
                BEGIN SELECT abs(-9223372036854775807 - 1); END
                """)
        }
        try queue.close()

        do {
            _ = try await AppleHealthImporter(batchSize: 300).importExport(at: url, into: store)
            Issue.record("the import succeeded")
        } catch {
            #expect((error as? HealthStoreError)?.kind == .io, "\(error)")
            #expect("\(error)".contains("(SQLite: 1 "), "\(error)")
        }
        let stored = try await AppleHealthImporterTests.quantities(store, .stepCount)
        #expect(stored.count == 900)
        #expect(stored.last?.startDate == Date(timeIntervalSince1970: 1_600_000_000 + 899 * 60))
        // A failed import keeps no run: the next one looks every record up.
        #expect(try await store.storedImportRuns(domain: AppleHealthImporter.runDomain).count == 0)
    }
}
