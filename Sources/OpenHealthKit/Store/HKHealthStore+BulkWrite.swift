import Foundation
import GRDB

extension HKHealthStore {
    /// How the store's writer works while a large import runs: how many changed pages it may hold in memory
    /// before writing them out, and how much it lets its write-ahead log grow before copying it into the database
    /// (OpenHealthKit API).
    ///
    /// An import saves many batches one after the other. By default each batch's transaction may hold about 2 MB of
    /// changed pages (more are written to the log and read back while the transaction goes on) and the log is copied
    /// into the database after every batch that wrote more than 4 MB: the pages of the indexes every batch changes (a
    /// sample's sync identifier, hashed, lands anywhere in its index) are then written out several times per batch and
    /// copied again after each one. With room for those pages and a log copied only every ``checkpointBytes``, each
    /// page is written once per batch and copied once per checkpoint.
    public struct BulkWrite: Sendable, Hashable {
        /// The most memory the writer's page cache may take (SQLite's `cache_size`).
        public var cacheBytes: Int
        /// The size of the write-ahead log at which it is copied into the database (`wal_autocheckpoint`).
        public var checkpointBytes: Int
        /// Saves share a transaction until it has been open a quarter of the time the bulk write has run, at least
        /// this long (as written once its due save ends).
        public var shortestTransaction: Duration
        /// The longest a transaction stays open (as written once its due save ends): an interrupted import loses the saves
        /// of at most this long, and another process writing to the store waits as long.
        public var longestTransaction: Duration

        /// - Parameters:
        ///   - cacheBytes: the writer's page cache; default 48 MB.
        ///   - checkpointBytes: the log size that triggers a checkpoint; default 256 MB.
        ///   - shortestTransaction: how long saves share a transaction at least; default a second.
        ///   - longestTransaction: how long saves share a transaction at most; default 8 seconds.
        public init(cacheBytes: Int = 48 << 20, checkpointBytes: Int = 256 << 20, shortestTransaction: Duration = .seconds(1),
                    longestTransaction: Duration = .seconds(8)) {
            self.cacheBytes = cacheBytes
            self.checkpointBytes = checkpointBytes
            self.shortestTransaction = shortestTransaction
            self.longestTransaction = longestTransaction
        }
    }

    /// Runs `body` with the store's writer set up for a large import (``BulkWrite``), then commits, sets the writer
    /// back to its defaults, copies the write-ahead log into the database and empties it (also when `body` throws).
    ///
    /// Meanwhile the saves `body` makes through this store object share transactions: each save is applied whole or not
    /// at all (in a savepoint), and the transaction commits after the save that ends once it is due
    /// (``BulkWrite/shortestTransaction``, ``BulkWrite/longestTransaction``), or, with no save, once it has been open the
    /// longest time: a save found already stored is found so in the open transaction too, other connections see the saves once
    /// committed, and a process killed meanwhile loses the saves of the open transaction only (an import run again stores
    /// them). Any other write of the store object meanwhile (another task's save, delete or authorization change) runs
    /// in a savepoint of its own and commits the shared transaction at once: it is durable when it returns. Live queries
    /// (observer, anchored and statistics collection queries, `results(for:)`) hear of `body`'s saves once a commit has
    /// made them visible to every connection, one notification per commit. Only the owner may call it.
    /// - Throws: `errorAuthorizationDenied` unless the store is opened as its owner; the store's error; what `body`
    ///   throws.
    public func withBulkWrite<T: Sendable>(_ settings: BulkWrite = BulkWrite(), _ body: () async throws -> T) async throws -> T {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may set the store up for an import")
        }
        let database = try await engine.databaseAsync()
        let engine = engine
        try await database.beginBulkWrite(settings) { changes in
            for query in engine.liveQueries { query.enqueue(changes) }
        }
        let result: T
        do {
            result = try await HealthDatabase.$bulkWriteOwner.withValue(ObjectIdentifier(database)) { try await body() }
        } catch {
            try? await database.endBulkWrite()
            throw error
        }
        try await database.endBulkWrite()
        return result
    }

    /// The bulk write the current task runs in (``withBulkWrite(_:_:)``), as a token a task it did not create can run
    /// its saves under (``asBulkWriteSave(_:_:)``): a task created on a thread outside Swift's tasks inherits nothing
    /// (package API).
    package struct BulkWriteOwner: Sendable {
        let database: ObjectIdentifier?
    }

    /// The bulk write the current task runs in, if any (package API).
    package var currentBulkWriteOwner: BulkWriteOwner { BulkWriteOwner(database: HealthDatabase.bulkWriteOwner) }

    /// Runs `body` as part of `owner`'s bulk write: its saves share the bulk write's transaction as the bulk write's own
    /// do (package API; an importer saving from a task created on a Dispatch thread).
    package func asBulkWriteSave<T: Sendable>(_ owner: BulkWriteOwner, _ body: () async throws -> T) async rethrows -> T {
        try await HealthDatabase.$bulkWriteOwner.withValue(owner.database) { try await body() }
    }
}

/// The transaction a bulk write keeps open across saves, and when it commits.
struct BulkTransaction: Sendable {
    let settings: HKHealthStore.BulkWrite
    let started: ContinuousClock.Instant
    var lastCommit: ContinuousClock.Instant
    /// Whether a transaction is open on the writer (set by the writer only).
    var isOpen = false
    /// The changes of the bulk write's saves that live queries have not been told about, told after the next commit.
    var pending = StoreChangeSet()
    /// Tells the live queries of the store object that runs the bulk write about committed changes.
    let deliver: @Sendable (StoreChangeSet) -> Void
    /// Commits the transaction once it has been open ``HKHealthStore/BulkWrite/longestTransaction``.
    var timer: Task<Void, Never>?
    /// When the open transaction began (set by the writer only); nil with none open.
    var openedAt: ContinuousClock.Instant?
    /// Wakes the timer when the writer begins a transaction: with none open it sleeps until then.
    let opened: AsyncStream<Void>.Continuation
    /// How many times the timer woke to commit (tests: an idle bulk write does not wake it).
    var timerWakes = 0
    /// How many of its shared transactions were rolled back (a commit that failed, or SQLite ending one itself on a full
    /// disk) with saves whose callers had heard they were saved: an importer keeps no run of records after one
    /// (`HKHealthStore.recordImportRuns`).
    var lostTransactions = 0

    /// Whether the transaction has been open long enough: a quarter of the time the bulk write has run, within
    /// ``HKHealthStore/BulkWrite/shortestTransaction`` and ``HKHealthStore/BulkWrite/longestTransaction``.
    func commitDue(at now: ContinuousClock.Instant) -> Bool {
        now - lastCommit >= min(settings.longestTransaction, max(settings.shortestTransaction, (now - started) / 4))
    }
}

extension HealthDatabase {
    /// SQLite's defaults for the writer: a 2 MB cache (`-2000` KiB) and a checkpoint every 1,000 log pages.
    static let defaultWriterTuning = (cachePages: -2000, checkpointPages: 1000)

    /// The database whose bulk write the current task runs in (`HKHealthStore.withBulkWrite`), if any.
    @TaskLocal static var bulkWriteOwner: ObjectIdentifier?

    /// Whether the current task runs in this database's bulk write: its writes are the bulk write's own saves.
    var isInOwnBulkWrite: Bool { Self.bulkWriteOwner == ObjectIdentifier(self) }

    /// Starts a bulk write: the writer's cache and checkpoint set as `settings` asks, and the saves that follow sharing
    /// transactions (``bulkWrite(_:ownSave:_:)``); `deliver` tells live queries about the changes each commit makes visible.
    func beginBulkWrite(_ settings: HKHealthStore.BulkWrite, deliver: @escaping @Sendable (StoreChangeSet) -> Void) async throws {
        // Built before the writer's settings change: a build that fails leaves nothing to set back.
        try await Self.mapErrors(path: displayPath) {
            try await writer.writeWithoutTransaction { db in
                let filter = try SyncHashFilter.build(db)
                self.syncHashFilter.withLock { $0 = filter }
            }
        }
        try await setWriterTuning(cachePages: -max(1, settings.cacheBytes >> 10), checkpointPages: max(1, settings.checkpointBytes / 4096))
        let now = ContinuousClock.now
        let (opens, opened) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let longest = settings.longestTransaction
        // With no transaction open the timer waits for the writer to begin one, then sleeps until that one is due.
        let timer = Task.detached { [weak self] in
            for await _ in opens {
                while !Task.isCancelled, let due = self?.bulkTransaction.withLock({ $0?.openedAt.map { $0 + longest } }) {
                    try? await Task.sleep(until: due, clock: .continuous)
                    guard !Task.isCancelled, let self else { return }
                    self.bulkTransaction.withLock { $0?.timerWakes += 1 }
                    try? await self.commitIfOverdue()
                }
                if Task.isCancelled { return }
            }
        }
        bulkTransaction.withLock {
            $0 = BulkTransaction(settings: settings, started: now, lastCommit: now, deliver: deliver, timer: timer, opened: opened)
        }
    }

    /// The bulk write's timer: commits the open transaction once it has been open the longest time, and tells live
    /// queries about saves already committed.
    private func commitIfOverdue() async throws {
        try await Self.mapErrors(path: displayPath) {
            try await writer.writeWithoutTransaction { db in
                guard let state = self.bulkTransaction.withLock({ $0 }) else { return }
                if db.isInsideTransaction {
                    let now = ContinuousClock.now
                    guard now - (state.openedAt ?? state.lastCommit) >= state.settings.longestTransaction else { return }
                    try self.commitShared(db, at: now)
                } else {
                    // SQLite ended the transaction itself (a full disk): none is open, nothing to wait for.
                    self.bulkTransaction.withLock { state in
                        if state?.isOpen == true { state?.lostTransactions += 1 }
                        state?.isOpen = false
                        state?.openedAt = nil
                    }
                    self.deliverPending()
                }
            }
        }
    }

    /// Holds back the live queries' notification of a bulk write's own save until a commit makes it visible; false
    /// (tell them now) when the save is committed already: outside a bulk write, or with no transaction open.
    func deferUntilCommit(_ changes: StoreChangeSet) -> Bool {
        guard isInOwnBulkWrite else { return false }
        return bulkTransaction.withLock { state in
            guard state?.isOpen == true else { return false }
            state?.pending.merge(changes)
            return true
        }
    }

    /// Commits the shared transaction on the writer, then tells live queries about the saves it made visible. When the
    /// commit fails, the transaction is rolled back and its saves' notifications are dropped.
    private func commitShared(_ db: Database, at now: ContinuousClock.Instant) throws {
        do {
            try Self.commitOrRollBack(db)
        } catch {
            bulkTransaction.withLock { state in
                state?.isOpen = false
                state?.openedAt = nil
                state?.pending = StoreChangeSet()
                state?.lostTransactions += 1
            }
            throw error
        }
        bulkTransaction.withLock { state in
            state?.isOpen = false
            state?.openedAt = nil
            state?.lastCommit = now
        }
        deliverPending()
    }

    /// Tells live queries about the held-back changes; only on the writer, with no transaction open.
    private func deliverPending() {
        let taken = bulkTransaction.withLock { state -> (StoreChangeSet, @Sendable (StoreChangeSet) -> Void)? in
            guard let current = state, !current.pending.isEmpty else { return nil }
            state?.pending = StoreChangeSet()
            return (current.pending, current.deliver)
        }
        if let (changes, deliver) = taken { deliver(changes) }
    }

    /// Commits what the bulk write holds, sets the writer back to its defaults, and copies the write-ahead log into the
    /// database, emptying it.
    ///
    /// Runs in a task of its own, so that a cancelled import still commits what it saved and leaves no transaction
    /// open (GRDB's asynchronous writes do nothing in a cancelled task). A commit that fails is rolled back: the
    /// writer is left without a transaction either way, and the error says what was lost.
    func endBulkWrite() async throws {
        try await Task.detached { try await self.finishBulkWrite() }.value
    }

    private func finishBulkWrite() async throws {
        bulkTransaction.withLock { state in
            state?.timer?.cancel()
            state?.opened.finish()
        }
        var commitError: (any Error)?
        do {
            try await Self.mapErrors(path: displayPath) {
                try await writer.writeWithoutTransaction { db in
                    defer {
                        self.bulkTransaction.withLock { $0 = nil }
                        self.syncHashFilter.withLock { $0 = nil }
                    }
                    try self.commitShared(db, at: .now)
                }
            }
        } catch {
            commitError = error
        }
        try await setWriterTuning(cachePages: Self.defaultWriterTuning.cachePages, checkpointPages: Self.defaultWriterTuning.checkpointPages)
        try await Self.mapErrors(path: displayPath) {
            try await writer.writeWithoutTransaction { db in
                // A reader still on an old snapshot keeps the log: then it is copied as far as it can be, and emptied later.
                if (try? db.checkpoint(.truncate)) == nil { try db.checkpoint(.passive) }
            }
        }
        if let commitError { throw commitError }
    }

    /// Commits the open transaction, if any; rolls it back when the commit fails, so that no transaction stays open.
    private static func commitOrRollBack(_ db: Database) throws {
        guard db.isInsideTransaction else { return }
        do {
            try db.commit()
        } catch {
            try? db.rollback()
            throw error
        }
    }

    /// Sets the writer connection's page cache (`cache_size`: pages, or KiB when negative) and `wal_autocheckpoint`.
    private func setWriterTuning(cachePages: Int, checkpointPages: Int) async throws {
        try await Self.mapErrors(path: displayPath) {
            try await writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA cache_size = \(cachePages)")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(checkpointPages)")
            }
        }
    }

    /// Runs `body` on the writer connection as a write does: in its own transaction, or while a bulk write runs in a
    /// savepoint of the transaction the bulk write keeps open. A save of the bulk write's own (`ownSave`) begins that
    /// transaction when none is open, and commits it once it is due (``BulkTransaction/commitDue(at:)``); any other
    /// write commits it at once, so that it is durable when it returns (its own transaction when none is open). Either
    /// `body` is applied whole or not at all; a write that fails rolls back its own savepoint only, unless SQLite ends
    /// the whole transaction (a full disk), which the error reports.
    func bulkWrite<T>(_ db: Database, ownSave: Bool, _ body: (Database) throws -> T) throws -> T {
        var result: Result<T, any Error> = .failure(CancellationError())
        guard let state = bulkTransaction.withLock({ $0 }), ownSave || db.isInsideTransaction else {
            try db.inTransaction {
                result = .success(try body(db))
                return .commit
            }
            return try result.get()
        }
        if !db.isInsideTransaction {
            try db.beginTransaction(.immediate)
            bulkTransaction.withLock { state in
                // One the bulk write thought open is gone: SQLite ended it (a full disk), and its saves with it.
                if state?.isOpen == true { state?.lostTransactions += 1 }
                state?.isOpen = true
                state?.openedAt = .now
                state?.opened.yield()
            }
        }
        try db.inSavepoint {
            result = .success(try body(db))
            return .commit
        }
        let now = ContinuousClock.now
        if !ownSave || state.commitDue(at: now) { try commitShared(db, at: now) }
        return try result.get()
    }
}

extension StoreChangeSet {
    /// Adds `other`'s changed types and sources (one notification for the saves a commit makes visible).
    mutating func merge(_ other: StoreChangeSet) {
        sourcesByType.merge(other.sourcesByType) { $0.union($1) }
    }
}
