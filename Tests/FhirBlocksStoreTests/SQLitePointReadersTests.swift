import Dispatch
import Foundation
import GRDB
import Synchronization
import Testing
@testable import FhirBlocksSQLite

/// The point readers' cache of statements whose text varies: a text prepared once is reused,
/// and however many texts a client makes, at most `StatementCache.capacity` are kept.
@Suite struct SQLitePointReadersTests {
    @Test func reusesAStatementAndStaysBounded() throws {
        let queue = try DatabaseQueue()
        let cache = SQLitePointReaders.StatementCache()
        try queue.inDatabase { db in
            let first = try cache.statement("SELECT 1", in: db)
            #expect(try cache.statement("SELECT 1", in: db) === first)
            for number in 0..<(3 * SQLitePointReaders.StatementCache.capacity) {
                let statement = try cache.statement("SELECT \(number) + 1", in: db)
                #expect(try Int.fetchOne(statement) == number + 1)
                #expect(cache.count <= SQLitePointReaders.StatementCache.capacity)
            }
            cache.removeAll()
            #expect(cache.count == 0)
        }
    }

    /// Reads that block inside SQLite leave Swift's cooperative threads free: more reads than
    /// the pool has threads (one per core) wait at once, each on its connection's own queue,
    /// while this task goes on and releases them. Were the reads run on the calling task's
    /// thread, the first ones would hold every cooperative thread and this task could not run:
    /// a watchdog on a Dispatch thread then releases them after a minute and the test fails
    /// (it guards against a hang; no time is measured).
    @Test func blockedReadsLeaveTheCooperativeThreadsFree() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("point-readers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let pool = try DatabasePool(path: path)
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)") }
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let readers = try SQLitePointReaders(path: path, count: count)
        let release = DispatchSemaphore(value: 0)
        let probe = ReadProbe()
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
            guard !probe.finished.load(ordering: .acquiring) else { return }
            probe.watchdogFired.store(true, ordering: .releasing)
            for _ in 0..<count { release.signal() }
        }
        let reads = (0..<count).map { _ in
            Task {
                try await readers.read { db in
                    probe.inside.add(1, ordering: .relaxed)
                    release.wait()
                    return try Int.fetchOne(db, sql: "SELECT x FROM t") ?? 0
                }
            }
        }
        while probe.inside.load(ordering: .relaxed) < count, !probe.watchdogFired.load(ordering: .acquiring) {
            await Task.yield()
        }
        let freedByThisTask = !probe.watchdogFired.load(ordering: .acquiring)
        if freedByThisTask {
            for _ in 0..<count { release.signal() }
        }
        var sum = 0
        for read in reads { sum += try await read.value }
        probe.finished.store(true, ordering: .releasing)
        #expect(freedByThisTask, "the blocked reads held the cooperative threads until the watchdog released them")
        #expect(sum == count)
        await readers.close()
        try pool.close()
    }
}

/// What the blocked reads and the watchdog share.
final class ReadProbe: Sendable {
    /// Reads inside SQLite's connection, blocked.
    let inside = Atomic<Int>(0)
    /// The test is over (the watchdog does nothing).
    let finished = Atomic<Bool>(false)
    /// The watchdog released the reads.
    let watchdogFired = Atomic<Bool>(false)
}
