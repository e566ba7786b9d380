import Dispatch
import Foundation
import Synchronization

/// The shared state behind an `HKHealthStore`: the database (opened on first use, so
/// `HKHealthStore()` never throws and a bad key surfaces as an error from every call), the
/// caller's authorization decisions, and the long-running queries to notify after writes.
final class StoreEngine: Sendable {
    let configuration: HKHealthStore.Configuration
    let revision: SourceRevisionRecord

    /// Opening holds only this lock, so notifying and stopping queries never wait for a
    /// key derivation or a migration.
    private let opened = Mutex<Result<HealthDatabase, any Error>?>(nil)

    private struct State {
        var decisions: [String: TypeDecision]?
        var decisionsVersion: Int64 = -1
        var liveQueries: [ObjectIdentifier: HKQuery] = [:]
        /// Watches the store for changes other store objects or processes commit, while live
        /// queries run.
        var watcher: Task<Void, Never>?
        /// The change counter the live queries have been told about.
        var seenSequence: Int64?
    }

    /// How often the watcher reads the store's change counter (one small read).
    static let watchInterval: Duration = .milliseconds(200)

    private let state = Mutex(State())

    init(configuration: HKHealthStore.Configuration) {
        self.configuration = configuration
        self.revision = SourceRevisionRecord(HKSourceRevision(source: configuration.source, version: configuration.sourceVersion))
    }

    var bundleIdentifier: String { configuration.source.bundleIdentifier }
    var isOwner: Bool { configuration.role == .owner }

    /// The open database, opening it on first use. Failures that will not go away by
    /// themselves (wrong key, corrupt or foreign file, newer schema, missing key) are
    /// remembered; others (a busy or unreadable file) are retried on the next call.
    func database() throws -> HealthDatabase {
        try opened.withLock { cached -> Result<HealthDatabase, any Error> in
            if let cached { return cached }
            let result = Result { () throws -> HealthDatabase in
                let location = configuration.location.databaseLocation
                let key: StoreKey
                switch location {
                case .file(let url):
                    key = configuration.key ?? .fromEnvironment(databaseDirectory: url.deletingLastPathComponent())
                case .inMemory:
                    key = configuration.key ?? .key(.init(size: .bits256))
                }
                return try HealthDatabase.open(location: location, key: key, tombstoneRetention: configuration.tombstoneRetention,
                                             now: configuration.now)
            }
            switch result {
            case .success:
                cached = result
            case .failure(let error as HealthStoreError) where [.wrongKey, .corruptDatabase, .unsupportedSchema, .keyUnavailable].contains(error.kind):
                cached = result
            case .failure:
                break
            }
            return result
        }.get()
    }

    /// The open database for the async API. Once open, no wait; the first call opens it (key
    /// derivation, migration: blocking work) on a Dispatch thread rather than on a thread of
    /// the cooperative pool.
    func databaseAsync() async throws -> HealthDatabase {
        if let opened = opened.withLock({ $0 }), case .success(let database) = opened { return database }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.database() })
            }
        }
    }

    // MARK: Authorization

    /// The caller's decisions, kept in memory and read again when the store's authorization
    /// version moved (the owner changed or revoked a decision, here or in another process): one
    /// small read per call.
    func decisions() throws -> [String: TypeDecision] {
        let database = try database()
        let version = try database.authorizationVersion()
        if let cached = cachedDecisions(version: version) { return cached }
        return remember(try database.decisions(for: bundleIdentifier), version: version)
    }

    /// The caller's decisions (as ``decisions()``), read without holding a cooperative thread.
    func decisionsAsync() async throws -> [String: TypeDecision] {
        let database = try await databaseAsync()
        let version = try await database.authorizationVersionAsync()
        if let cached = cachedDecisions(version: version) { return cached }
        return remember(try await database.decisionsAsync(for: bundleIdentifier), version: version)
    }

    private func cachedDecisions(version: Int64) -> [String: TypeDecision]? {
        state.withLock { $0.decisionsVersion == version ? $0.decisions : nil }
    }

    private func remember(_ loaded: [String: TypeDecision], version: Int64) -> [String: TypeDecision] {
        state.withLock { state in
            state.decisions = loaded
            state.decisionsVersion = version
        }
        return loaded
    }

    /// The decisions in memory, without a database read (for filtering change notifications).
    private func cachedDecisions() -> [String: TypeDecision]? {
        state.withLock { $0.decisions }
    }

    func record(_ updates: [String: TypeDecision]) async throws {
        try await databaseAsync().recordAsync(updates, for: bundleIdentifier)
        _ = try await decisionsAsync()
    }

    /// What a read of `type` may see: everything when read is authorized (or for the owner),
    /// the caller's own samples when it may only share, nothing otherwise.
    func readScope(for type: String) throws -> ReadScope {
        if isOwner { return .everything }
        return scope(of: try decisions()[type] ?? TypeDecision())
    }

    /// ``readScope(for:)`` without holding a cooperative thread.
    func readScopeAsync(for type: String) async throws -> ReadScope {
        if isOwner { return .everything }
        return scope(of: try await decisionsAsync()[type] ?? TypeDecision())
    }

    private func scope(of decision: TypeDecision) -> ReadScope {
        if decision.read == .authorized { return .everything }
        if decision.share == .authorized { return .sources([bundleIdentifier]) }
        return .nothing
    }

    /// Throws HealthKit's errors when the caller may not write `type`.
    func checkShare(_ type: String) async throws {
        if isOwner { return }
        try check(share: type, in: try await decisionsAsync())
    }

    /// Throws HealthKit's errors when `decisions` do not let the caller write `type`.
    func check(share type: String, in decisions: [String: TypeDecision]) throws {
        if isOwner { return }
        switch (decisions[type] ?? TypeDecision()).share {
        case .authorized: return
        case .denied: throw HKError(.errorAuthorizationDenied, "not authorized to share \(type)")
        case .notDetermined: throw HKError(.errorAuthorizationNotDetermined, "authorization to share \(type) was never requested")
        }
    }

    /// Whether a sample of `type` saved by `source` is visible to the caller.
    /// Uses the decisions in memory (the caller's last query read them) rather than a database
    /// read per object.
    func canSee(type: String, source: String) -> Bool {
        if isOwner { return true }
        guard let decisions = cachedDecisions() ?? (try? decisions()) else { return false }
        return canSee(type: type, source: source, in: decisions)
    }

    /// Whether `decisions` let the caller see a sample of `type` saved by `source`.
    func canSee(type: String, source: String, in decisions: [String: TypeDecision]) -> Bool {
        isOwner || scope(of: decisions[type] ?? TypeDecision()).admits(source: source)
    }

    // MARK: Live queries

    func register(_ query: HKQuery) async {
        // Nobody else can write to a private in-memory database: no watcher.
        let shared: Bool
        if case .file = configuration.location.databaseLocation { shared = true } else { shared = false }
        let seen = shared ? try? await databaseAsync().changeSequence() : nil
        state.withLock { state in
            state.liveQueries[ObjectIdentifier(query)] = query
            guard shared, state.watcher == nil else { return }
            state.seenSequence = seen
            state.watcher = Task { [weak self] in await self?.watchForOtherWriters() }
        }
    }

    func unregister(_ query: HKQuery) {
        state.withLock { state in
            state.liveQueries.removeValue(forKey: ObjectIdentifier(query))
            if state.liveQueries.isEmpty {
                state.watcher?.cancel()
                state.watcher = nil
            }
        }
    }

    /// While live queries run: reads the change counter every ``watchInterval`` and passes the
    /// changes committed by other store objects or processes (same file) to the live queries,
    /// which is how an observer query hears of another process's save within a second.
    private func watchForOtherWriters() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.watchInterval)
            guard !Task.isCancelled else { return }
            _ = await checkForOtherWriters()
        }
    }

    /// One step of the watcher: passes changes other writers committed since the last step to
    /// the live queries. Returns whether there were any (tests call it to step the watcher).
    func checkForOtherWriters() async -> Bool {
        guard let database = try? await databaseAsync() else { return false }
        guard let seen = state.withLock({ $0.seenSequence }) else {
            // The counter could not be read when the first query registered: start from now.
            let current = try? await database.changeSequence()
            state.withLock { state in state.seenSequence = state.seenSequence ?? current }
            return false
        }
        guard let (changes, through) = try? await database.changes(after: seen), through > seen else { return false }
        let queries = state.withLock { state -> [HKQuery] in
            guard let current = state.seenSequence, current < through else { return [] }
            state.seenSequence = through
            return Array(state.liveQueries.values)
        }
        guard !changes.isEmpty, !queries.isEmpty else { return false }
        for query in queries { query.enqueue(changes) }
        return true
    }

    var liveQueries: [HKQuery] {
        state.withLock { Array($0.liveQueries.values) }
    }
}
