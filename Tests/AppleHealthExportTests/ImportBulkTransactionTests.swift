import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
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
}
