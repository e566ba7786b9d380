import FhirBlocks

/// The ledger's share of a ``TrustStore``: every write (``commit(_:)``, one transaction), and
/// the reads the server rebuilds its ledger from — the GUIDs it handed out, the registrations,
/// the permissions and the version that tells servers sharing a database to reload them.
public protocol LedgerStore: Sendable {
    /// Applies `change` in one transaction and returns the log indexes given to its audit
    /// entries, in order. Throws ``TrustStoreError/alreadyRegistered(_:)`` (and stores nothing)
    /// if a registration's csiGuid is already registered.
    @discardableResult
    func commit(_ change: TrustChange) async throws(TrustStoreError) -> [Int]

    /// Applies `change` like ``commit(_:)`` and calls `completion` once with its result as soon
    /// as the transaction ended, from the store's own thread where it has one (SQLite: its
    /// writer's, right after `COMMIT`), never from within this call. `completion` must not
    /// block: it is what an audit group commit resumes its requests from without a hop to a
    /// task first.
    func commit(_ change: TrustChange, completion: @escaping @Sendable (Result<[Int], TrustStoreError>) -> Void)

    // MARK: Identities

    /// The GUID `util/getGloballyUniqueIdentifier` handed out, with when, if it is still kept.
    func issuedGuid(_ guid: CsiGuid) async throws(TrustStoreError) -> IssuedGuid?
    /// The registration of `csi`, if any.
    func registration(_ csi: CsiGuid) async throws(TrustStoreError) -> CsiRegistration?
    /// Every registration (the server caches them: they never change), oldest first: by
    /// ``CsiRegistration/registeredAt``, then by csiGuid in byte order.
    func registrations() async throws(TrustStoreError) -> [CsiRegistration]

    // MARK: Permissions

    /// Every permission, revoked ones included (the ledger is rebuilt from them at start), by
    /// grant time, then by id in byte order.
    func permissions() async throws(TrustStoreError) -> [Permission]
    /// A counter that every commit adding a registration, a permission or a revocation, or
    /// revoking an access token, raises (in the same transaction). Servers sharing a database
    /// read it on each request and reload their ledger (and forget the tokens they keep in
    /// memory) when it moved, so a revocation committed by one is in force on all at once.
    func ledgerVersion() async throws(TrustStoreError) -> Int64
}

extension LedgerStore {
    /// ``commit(_:)`` on a task of its own, then `completion` on that task (a store without a
    /// thread of its own to complete from).
    public func commit(_ change: TrustChange, completion: @escaping @Sendable (Result<[Int], TrustStoreError>) -> Void) {
        Task {
            do throws(TrustStoreError) {
                completion(.success(try await commit(change)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Whether `util/getGloballyUniqueIdentifier` handed out `guid` (and it is still kept).
    public func isIssuedGuid(_ guid: CsiGuid) async throws(TrustStoreError) -> Bool {
        try await issuedGuid(guid) != nil
    }
}
