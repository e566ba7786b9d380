import FhirBlocksStore
import Synchronization

/// One test's database on one backend: a fresh, migrated, empty store, and the means to open
/// the same database again (a restarted server). Every store it opened is closed, and the
/// database deleted, when the test ends (see ``StoreBackends/withSession(_:_:)``).
final class StoreSession: Sendable {
    /// The backend's name, for messages.
    let backend: StoreBackend
    /// The store the test starts with.
    let store: any TrustStore
    private let opener: @Sendable () async throws -> any TrustStore
    private let opened: Mutex<[any TrustStore]>

    init(backend: StoreBackend, opener: @escaping @Sendable () async throws -> any TrustStore) async throws {
        self.backend = backend
        self.opener = opener
        let store = try await opener()
        do {
            try await store.migrate()
        } catch {
            await store.close()
            throw error
        }
        self.store = store
        opened = Mutex([store])
    }

    /// A new store (a new connection pool or file handle) on the same database, migrated.
    func reopen() async throws -> any TrustStore {
        let store = try await opener()
        opened.withLock { $0.append(store) }
        try await store.migrate()
        return store
    }

    /// Closes every store this session opened.
    func closeAll() async {
        let stores = opened.withLock { stores in
            defer { stores = [] }
            return stores
        }
        for store in stores { await store.close() }
    }
}
