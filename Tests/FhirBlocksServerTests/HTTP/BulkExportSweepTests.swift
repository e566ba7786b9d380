import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Testing
import TestSupport

/// Expired Bulk Data export jobs and their files are deleted by the server itself, on SQLite and
/// PostgreSQL: at start-up and then every quarter of the retention, with no kick-off needed.
@Suite struct BulkExportSweepTests {
    /// A completed job of `client` with one file of one line, kicked off at `kickedOff`, expiring `retention` seconds later.
    static func completedJob(_ world: TestWorld, id: String, client: CsiGuid, kickedOff: Timestamp, retention: Int64) async throws {
        try await world.store.createExportJob(StoredExportJob(id: id, client: client, tokenID: "t", scope: "system/*.rs", kind: "patient",
                                                              request: "\(TestWorld.base)/fhir/Patient/$export", types: ["Observation"], since: nil,
                                                              transactionTime: kickedOff, expiresAt: kickedOff.adding(seconds: retention)))
        let lease = world.now.adding(seconds: 60)
        try #require(try await world.store.claimExportJob(id: id, owner: "sweep-test", now: world.now, leaseUntil: lease))
        let line = Array("{\"resourceType\":\"Observation\",\"id\":\"\(id)\"}\n".utf8)
        try #require(try await world.store.appendExportChunk(ExportChunk(jobID: id, type: "Observation", sequence: 0, lineCount: 1, bytes: line),
                                                             owner: "sweep-test", progress: "done", leaseUntil: lease))
        try #require(try await world.store.finishExportJob(id: id, owner: "sweep-test", status: .completed, error: nil, at: world.now))
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
}
