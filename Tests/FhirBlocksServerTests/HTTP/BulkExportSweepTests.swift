import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Foundation
import Logging
import Testing
import TestSupport

/// Expired Bulk Data export jobs and their files are deleted by the server itself, on SQLite and
/// PostgreSQL: at start-up and then every quarter of the retention, with no kick-off needed.
@Suite struct BulkExportSweepTests {
    /// A completed job of `client` with one file of one line, kicked off and finished at `kickedOff`, expiring `retention` seconds later.
    static func completedJob(_ world: TestWorld, id: String, client: CsiGuid, kickedOff: Timestamp, retention: Int64) async throws {
        try await world.store.createExportJob(StoredExportJob(id: id, client: client, tokenID: "t", scope: "system/*.rs", kind: "patient",
                                                              request: "\(TestWorld.base)/fhir/Patient/$export", types: ["Observation"], since: nil,
                                                              transactionTime: kickedOff, expiresAt: kickedOff.adding(seconds: retention)))
        let lease = world.now.adding(seconds: 60)
        try #require(try await world.store.claimExportJob(id: id, owner: "sweep-test", now: world.now, leaseUntil: lease))
        let line = Array("{\"resourceType\":\"Observation\",\"id\":\"\(id)\"}\n".utf8)
        try #require(try await world.store.appendExportChunk(ExportChunk(jobID: id, type: "Observation", sequence: 0, lineCount: 1, bytes: line),
                                                             owner: "sweep-test", progress: "done", leaseUntil: lease))
        // Finished at its kick-off: the retention counts from the end.
        try #require(try await world.store.finishExportJob(id: id, owner: "sweep-test", status: .completed, error: nil, at: kickedOff))
        try #require(try await world.store.exportOutputs(id: id).count == 1)
    }

    /// Whether job `id` and its files are gone, asked every 50 ms for up to `attempts` times.
    static func isDeleted(_ world: TestWorld, _ id: String, attempts: Int = 600) async throws -> Bool {
        for _ in 0..<attempts {
            if try await world.store.exportJob(id: id) == nil, try await world.store.exportOutputs(id: id).isEmpty { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func thePeriodIsAQuarterOfTheRetentionBetweenASecondAndAnHour() {
        #expect(ExportSweeper.periodSeconds(retentionSeconds: 86_400) == 3_600)
        #expect(ExportSweeper.periodSeconds(retentionSeconds: 8 * 3_600) == 3_600)
        #expect(ExportSweeper.periodSeconds(retentionSeconds: 3_600) == 900)
        #expect(ExportSweeper.periodSeconds(retentionSeconds: 8) == 2)
        #expect(ExportSweeper.periodSeconds(retentionSeconds: 1) == 1)
    }

    /// A job that expired while no server ran is deleted when one starts (the default retention:
    /// its next sweep is an hour away), with no kick-off.
    @Test(arguments: TestBackend.available)
    func expiredJobsAreDeletedAtStart(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        let client = try await world.register(.app("backend")).csi
        let retention = world.service.configuration.exportRetentionSeconds
        try await Self.completedJob(world, id: "expired012345678", client: client, kickedOff: world.now.adding(seconds: -retention - 1),
                                    retention: retention)
        try await Self.completedJob(world, id: "current012345678", client: client, kickedOff: world.now, retention: retention)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) { () async throws in
            #expect(try await Self.isDeleted(world, "expired012345678"))
            #expect(try await world.store.exportJob(id: "current012345678") != nil)
            #expect(try await world.store.exportOutputs(id: "current012345678").count == 1)
        }
    }

    /// With an 8-second retention the server sweeps every 2 seconds: once the clock passes a
    /// job's expiry, the job and its file go without another kick-off.
    @Test(arguments: TestBackend.available)
    func expiredJobsAreDeletedPeriodically(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend) { $0.exportRetentionSeconds = 8 }
        let client = try await world.register(.app("backend")).csi
        // One already expired: once it is gone, the start-up sweep is over.
        try await Self.completedJob(world, id: "expired012345678", client: client, kickedOff: world.now.adding(seconds: -9), retention: 8)
        try await Self.completedJob(world, id: "current012345678", client: client, kickedOff: world.now, retention: 8)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) { () async throws in
            #expect(try await Self.isDeleted(world, "expired012345678"))
            #expect(try await world.store.exportOutputs(id: "current012345678").count == 1)
            world.clock.advance(seconds: 9)
            #expect(try await Self.isDeleted(world, "current012345678"))
        }
    }

    /// Whether job `id`'s files are gone from disk (SQLite; always true on PostgreSQL, whose files are its rows).
    static func folderIsGone(_ world: TestWorld, _ id: String) -> Bool {
        guard let folder = BulkExportFileTests.exportsFolder(world.store) else { return true }
        return !FileManager.default.fileExists(atPath: folder + "/" + id)
    }

    /// A sweep past a job's expiry leaves a job still queued and one running under a live lease (its
    /// server still writing it); one whose lease ran out, and a finished one, go with their files. The
    /// running job then completes, kept the retention after its end, and goes once that passes.
    @Test(arguments: TestBackend.available)
    func aSweepLeavesJobsStillBeingWorkedOn(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend) { $0.exportRetentionSeconds = 8 }
        let client = try await world.register(.app("backend")).csi
        let sweeper = ExportSweeper(store: world.store, clock: world.service.clock, periodSeconds: 2, logger: Logger(label: "sweep-test"))
        try await withTeardown({ await world.close() }) { () async throws in
            let kickedOff = world.now
            func job(_ id: String) -> StoredExportJob {
                StoredExportJob(id: id, client: client, tokenID: "t", scope: "system/*.rs", kind: "patient", request: "\(TestWorld.base)/fhir/Patient/$export",
                                types: ["Observation"], since: nil, transactionTime: kickedOff, expiresAt: kickedOff.adding(seconds: 8))
            }
            try await Self.completedJob(world, id: "finished01234567", client: client, kickedOff: kickedOff, retention: 8)
            try await world.store.createExportJob(job("queued0123456789"))
            for id in ["running012345678", "abandoned0123456"] {
                try await world.store.createExportJob(job(id))
                try #require(try await world.store.claimExportJob(id: id, owner: id, now: kickedOff, leaseUntil: kickedOff.adding(seconds: 60)))
                let line = Array("{\"resourceType\":\"Observation\",\"id\":\"\(id)\"}\n".utf8)
                try #require(try await world.store.appendExportChunk(ExportChunk(jobID: id, type: "Observation", sequence: 0, lineCount: 1, bytes: line),
                                                                     owner: id, progress: "1 of 2 patients exported",
                                                                     leaseUntil: kickedOff.adding(seconds: 60)))
            }
            #expect(BulkExportFileTests.exportsFolder(world.store) == nil || !Self.folderIsGone(world, "running012345678"))
            // 30 s on: every job is past its expiry; the running job's lease is renewed, the abandoned one's is not.
            world.clock.advance(seconds: 30)
            try #require(try await world.store.renewExportJob(id: "running012345678", owner: "running012345678", progress: "2 of 2 patients exported",
                                                             leaseUntil: world.now.adding(seconds: 60)))
            world.clock.advance(seconds: 40)
            try #require(try await world.store.renewExportJob(id: "running012345678", owner: "running012345678", progress: "2 of 2 patients exported",
                                                             leaseUntil: world.now.adding(seconds: 60)))
            await sweeper.sweep()
            for id in ["finished01234567", "abandoned0123456"] {
                #expect(try await Self.isDeleted(world, id, attempts: 1), "\(id)")
                #expect(Self.folderIsGone(world, id), "\(id)")
            }
            #expect(try await world.store.exportJob(id: "queued0123456789")?.status == .queued)
            #expect(try await world.store.exportJob(id: "running012345678")?.status == .running)
            #expect(try await world.store.exportOutputs(id: "running012345678").count == 1)
            #expect(BulkExportFileTests.exportsFolder(world.store) == nil || !Self.folderIsGone(world, "running012345678"))
            // It completes, and is kept the retention (8 s) after that.
            try #require(try await world.store.finishExportJob(id: "running012345678", owner: "running012345678", status: .completed, error: nil,
                                                               at: world.now))
            #expect(try await world.store.exportJob(id: "running012345678")?.expiresAt == world.now.adding(seconds: 8))
            world.clock.advance(seconds: 7)
            await sweeper.sweep()
            #expect(try await world.store.exportJob(id: "running012345678")?.status == .completed)
            #expect(try await world.store.exportOutputs(id: "running012345678").count == 1)
            world.clock.advance(seconds: 1)
            await sweeper.sweep()
            #expect(try await Self.isDeleted(world, "running012345678", attempts: 1))
            #expect(Self.folderIsGone(world, "running012345678"))
        }
    }
}
