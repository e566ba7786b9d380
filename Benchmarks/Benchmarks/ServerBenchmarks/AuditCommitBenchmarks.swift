import Benchmark
import BenchmarkSupport
import FhirBlocks
import FhirBlocksServer
import FhirBlocksSQLite
import FhirBlocksStore
import Foundation
import GRDB
import Logging
import Synchronization

// The audit group commit alone (issue 15), without HTTP and without the rest of a read: 16 tasks
// each append 64 entries one after the other through `TrustService.appendAuditEntry` (the path of
// a protected read's entry: the entry built, its canonical JSON and leaf hash, the group commit,
// the leaf cache and Merkle frontier, a checkpoint signed every 64 entries), against the ceiling,
// the same rows (canonical bytes and leaf hashes made beforehand) inserted with raw GRDB prepared
// statements, 16 a transaction, into a store of the same schema. Both are SQLite files in
// temporary folders with the store's settings (WAL, `synchronous = NORMAL`). The first benchmark
// also reports the mean number of entries per group commit the server reached.

let auditEntriesPerSecond = BenchmarkMetric.custom("audit entries/s", polarity: .prefersLarger, useScalingFactor: false)
let auditGroupSize = BenchmarkMetric.custom("entries per group commit (mean)", polarity: .prefersLarger, useScalingFactor: false)

let auditCommitBenchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, auditEntriesPerSecond], timeUnits: .milliseconds, warmupIterations: 2,
                                                scalingFactor: .one, maxDuration: .seconds(20), maxIterations: 40)

    Benchmark("Audit group commit, 16 tasks × 64 entries (ceiling: the same rows, 16 a transaction, raw GRDB)",
              configuration: configuration) { benchmark in
        let fixture = try await AuditCommitFixture.shared()
        for _ in benchmark.scaledIterations {
            let groups = fixture.nextRows()
            let start = ContinuousClock.now
            benchmark.startMeasurement()
            for group in groups {
                try await fixture.raw.write { db in
                    let insert = try db.cachedStatement(sql: "INSERT INTO audit_entry (idx, leaf_hash, canonical, signature_digest) VALUES (?, ?, ?, ?)")
                    for row in group {
                        try insert.execute(arguments: [row.index, Data(row.entry.leafHash.bytes), Data(row.entry.canonicalBytes), row.entry.signatureDigest])
                    }
                }
            }
            benchmark.stopMeasurement()
            benchmark.measurement(auditEntriesPerSecond, AuditCommitFixture.rate(AuditCommitFixture.entriesPerIteration, since: start))
        }
    }

    Benchmark("Audit group commit, 16 tasks × 64 entries (TrustService.appendAuditEntry, the read's path)",
              configuration: Benchmark.Configuration(metrics: [.wallClock, auditEntriesPerSecond, auditGroupSize], timeUnits: .milliseconds,
                                                     warmupIterations: 2, scalingFactor: .one, maxDuration: .seconds(20), maxIterations: 40)) { benchmark in
        let fixture = try await AuditCommitFixture.shared()
        let before = fixture.committed()
        let start = ContinuousClock.now
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<AuditCommitFixture.tasks {
                    group.addTask {
                        for _ in 0..<AuditCommitFixture.entriesPerTask {
                            blackHole(try await fixture.service.appendAuditEntry(AuditCommitFixture.readEntry(task)))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        benchmark.stopMeasurement()
        let after = fixture.committed()
        let iterations = benchmark.scaledIterations.count
        benchmark.measurement(auditEntriesPerSecond, AuditCommitFixture.rate(AuditCommitFixture.entriesPerIteration * iterations, since: start))
        if after.groups > before.groups {
            benchmark.measurement(auditGroupSize, (after.entries - before.entries) / (after.groups - before.groups))
        }
    }
}

let readsPerGroup = BenchmarkMetric.custom("reads per group commit (mean)", polarity: .prefersLarger, useScalingFactor: false)
let groupWriteMicroseconds = BenchmarkMetric.custom("writer time per group (µs, mean)", polarity: .prefersSmaller, useScalingFactor: false)
let readWaitMicroseconds = BenchmarkMetric.custom("read's wait for its entry (µs, mean)", polarity: .prefersSmaller, useScalingFactor: false)
let writerBusyPercent = BenchmarkMetric.custom("writer busy (% of the burst)", polarity: .prefersSmaller, useScalingFactor: false)

/// Where the audit side's time goes under the 16-client load: the same protected reads as the
/// concurrent benchmark, with the server's own counters of its group commits.
let auditUnderLoadBenchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(metrics: [readsPerSecond, readsPerGroup, groupWriteMicroseconds, readWaitMicroseconds, writerBusyPercent],
                                                warmupIterations: 2, scalingFactor: .one, maxDuration: .seconds(20), maxIterations: 20)
    Benchmark("HTTP, 16 concurrent clients: the protected reads' group commits (512 reads each)", configuration: configuration) { benchmark in
        let fixture = try await ServerFixture.shared()
        for _ in benchmark.scaledIterations {
            let before = AuditMetricsSnapshot(fixture.metrics)
            let reads = try await fixture.burst("\(fixture.fhirBlocksURL)/fhir/Observation/o1", bearer: fixture.readToken, perClient: 32)
            let after = AuditMetricsSnapshot(fixture.metrics)
            let groups = max(after.groups - before.groups, 1), waits = max(after.waits - before.waits, 1)
            let burstSeconds = Double(ServerFixture.concurrentClients * 32) / reads
            benchmark.measurement(readsPerSecond, Int(reads))
            benchmark.measurement(readsPerGroup, Int(((after.entries - before.entries) / groups).rounded()))
            benchmark.measurement(groupWriteMicroseconds, Int((1e6 * (after.writeSeconds - before.writeSeconds) / groups).rounded()))
            benchmark.measurement(readWaitMicroseconds, Int((1e6 * (after.waitSeconds - before.waitSeconds) / waits).rounded()))
            benchmark.measurement(writerBusyPercent, Int((100 * (after.writeSeconds - before.writeSeconds) / burstSeconds).rounded()))
        }
    }
}

/// A `TrustService` over an empty SQLite store (no HTTP), and a raw GRDB database of the same schema.
final class AuditCommitFixture: Sendable {
    static let holder = FixtureOnce { try await AuditCommitFixture() }
    static let tasks = 16
    static let entriesPerTask = 64
    static let entriesPerIteration = tasks * entriesPerTask

    static func shared() async throws -> AuditCommitFixture { try await holder.get() }

    let service: TrustService
    let metrics: ServerMetrics
    let raw: DatabasePool
    private let rows = RawRowCounter()

    init() async throws {
        let folder = try ScratchFolder.untilExit("fhirblocks-audit").url
        let store = try SQLiteTrustStore(path: folder.appendingPathComponent("trust.sqlite").path)
        try await store.migrate()
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        metrics = ServerMetrics()
        service = TrustService(store: store, auditKey: .generate(), logger: logger, metrics: metrics)
        try await service.start()
        raw = try await rawTrustDatabase(at: folder.appendingPathComponent("raw.sqlite").path)
    }

    /// An entry like a protected read's (agent, patient, permission, token, resource, scope).
    static func readEntry(_ task: Int) -> AuditEntry {
        AuditEntry(type: .fhirAccess, recorded: Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000)), outcome: .success,
                   agent: "9f2c4e1a-7b3d-4c5e-8f6a-0b1c2d3e4f5\(task % 10)", patient: "1e2d3c4b-5a69-4788-9766-554433221100",
                   permissionIDs: ["perm-0c7e9a51"], tokenID: "tok-\(task)", resources: ["Observation/o1"], scope: "patient/Observation.rs")
    }

    /// One iteration's rows for the raw ceiling: 64 groups of 16, with the next indexes.
    func nextRows() -> [[(index: Int, entry: PendingAuditEntry)]] {
        let first = rows.take(Self.entriesPerIteration)
        return (0..<Self.entriesPerTask).map { group in
            (0..<Self.tasks).map { task in
                (first + group * Self.tasks + task, PendingAuditEntry(entry: Self.readEntry(task)))
            }
        }
    }

    /// Entries and group commits counted by the server's metrics so far.
    func committed() -> (entries: Int, groups: Int) {
        let snapshot = AuditMetricsSnapshot(metrics)
        return (Int(snapshot.entries), Int(snapshot.groups))
    }

    static func rate(_ count: Int, since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Int((Double(count) / max(seconds, 1e-9)).rounded())
    }
}

/// The audit group commit's counters in a server's Prometheus text.
struct AuditMetricsSnapshot {
    var entries = 0.0, groups = 0.0, writeSeconds = 0.0, waitSeconds = 0.0, waits = 0.0

    init(_ metrics: ServerMetrics) {
        let lines = String(decoding: metrics.exposition(), as: UTF8.self).split(separator: "\n")
        func value(_ name: String) -> Double {
            let line = lines.first { $0.hasPrefix(name + " ") }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        }
        entries = value("fhirblocks_audit_entries_total")
        groups = value("fhirblocks_audit_group_commits_total")
        writeSeconds = value("fhirblocks_audit_group_write_seconds_sum")
        waitSeconds = value("fhirblocks_audit_wait_seconds_sum")
        waits = value("fhirblocks_audit_wait_seconds_count")
    }
}

/// A new database of the trust schema (migrated by the store, then closed) opened with raw
/// GRDB and the store's settings (WAL, `synchronous = NORMAL`), for the ceilings written around
/// the store.
func rawTrustDatabase(at path: String) async throws -> DatabasePool {
    let schema = try SQLiteTrustStore(path: path)
    try await schema.migrate()
    await schema.close()
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    return try DatabasePool(path: path, configuration: configuration)
}

/// The next free index of the raw ceiling's table.
final class RawRowCounter: Sendable {
    private let next = Mutex(0)

    func take(_ count: Int) -> Int {
        next.withLock { value in
            defer { value += count }
            return value
        }
    }
}
