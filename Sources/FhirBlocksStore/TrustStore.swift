import FhirBlocks

/// Everything the FhirBlocks server keeps, behind one protocol with two real implementations:
/// SQLite through GRDB (`FhirBlocksSQLite`, the embedded default) and PostgreSQL through
/// postgres-nio (`FhirBlocksPostgres`). Both pass the same conformance suite
/// (`Tests/FhirBlocksStoreTests`).
///
/// Writes go through ``commit(_:)`` only: one call is one database transaction, so a grant and
/// the audit entry that records it are stored together or not at all, and an acknowledged
/// request survives a crash. The audit log is append-only; its indexes are assigned inside the
/// transaction, densely from 0, in commit order.
public protocol TrustStore: NonceStore, AuthorizationCodeStore {
    /// Creates or upgrades the schema. Safe to call on every start.
    func migrate() async throws(TrustStoreError)

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
    /// Every registration (the server caches them: they never change).
    func registrations() async throws(TrustStoreError) -> [CsiRegistration]

    // MARK: Permissions

    /// Every permission, revoked ones included (the ledger is rebuilt from them at start).
    func permissions() async throws(TrustStoreError) -> [Permission]
    /// A counter that every commit adding a registration, a permission or a revocation, or
    /// revoking an access token, raises (in the same transaction). Servers sharing a database
    /// read it on each request and reload their ledger (and forget the tokens they keep in
    /// memory) when it moved, so a revocation committed by one is in force on all at once.
    func ledgerVersion() async throws(TrustStoreError) -> Int64

    // MARK: Tokens

    /// The token whose SHA-256 is `hash` (``AccessToken/hash(of:)``), if any.
    func token(hash: String) async throws(TrustStoreError) -> StoredAccessToken?

    // MARK: SMART app launch

    /// The SMART public client with this `client_id`, if registered.
    func smartClient(_ clientID: CsiGuid) async throws(TrustStoreError) -> SmartClient?
    /// How many SMART public clients are registered.
    func smartClientCount() async throws(TrustStoreError) -> Int
    /// The SMART authorization with this id (the hash of its request), if kept.
    func smartAuthorization(id: String) async throws(TrustStoreError) -> SmartAuthorization?
    /// The SMART authorization a user code names, if kept.
    func smartAuthorization(userCode: String) async throws(TrustStoreError) -> SmartAuthorization?
    /// The SMART authorization whose code has this SHA-256, if kept.
    func smartAuthorization(codeHash: String) async throws(TrustStoreError) -> SmartAuthorization?
    /// Marks the refresh token whose SHA-256 is `hash` used and returns it as it was before
    /// (``StoredRefreshToken/used`` false for the one caller that rotated it), or nil if unknown.
    func useRefreshToken(hash: String) async throws(TrustStoreError) -> StoredRefreshToken?
    /// The refresh token whose SHA-256 is `hash`, if kept, without using it (RFC 7009
    /// revocation reads it to find its family).
    func refreshToken(hash: String) async throws(TrustStoreError) -> StoredRefreshToken?

    // MARK: FHIR resources

    /// The current version of a resource in `patient`'s compartment, if stored. Ids are
    /// scoped by compartment: the same `type/id` in two compartments are two resources, so no
    /// request can learn whether an id exists in another patient's compartment.
    func resource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> FHIRResourceRecord?
    /// ``ledgerVersion()`` and ``resource(patient:type:id:)`` together, read in one read
    /// transaction where the store can (so both answers are of the same moment): what a FHIR
    /// read by id needs to confirm the token it resolved against its cached ledger and to
    /// answer, in one trip to the store.
    func ledgerVersionAndResource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> LedgerVersionAndResource
    /// The current resources in `patient`'s compartment, optionally of one type, ordered by
    /// type then id.
    func resources(patient: CsiGuid, type: String?) async throws(TrustStoreError) -> [FHIRResourceRecord]
    /// Up to `limit` current resources of `patient`'s compartment that come after `after` in
    /// (type, id) byte order (from the first when nil), in that order: one page of
    /// `Patient/$everything`, read through an index in that order rather than by sorting the
    /// whole compartment.
    func resources(patient: CsiGuid, after: (type: String, id: String)?, limit: Int) async throws(TrustStoreError) -> [FHIRResourceRecord]
    /// The last recorded writer of each resource of `type` in `patient`'s compartment, by id
    /// (``FHIRResourceWrite/writer``), with the version it wrote: a caller compares it with the
    /// version it read (a later version stored without a writer, or written since, is not that
    /// writer's).
    func resourceWriters(patient: CsiGuid, type: String) async throws(TrustStoreError) -> [String: FHIRResourceWriter]

    /// The indexed part of a FHIR search (see ``SearchSQL/candidates(patient:query:)``): the
    /// resources of `query.type` in `patient`'s compartment satisfying its token and date
    /// clauses, with their sort keys and security labels, in no particular order.
    func searchCandidates(patient: CsiGuid, query: SearchQuery) async throws(TrustStoreError) -> [SearchCandidate]
    /// The current resources of `type` in `patient`'s compartment with these ids (those that
    /// exist), in no particular order.
    func resources(patient: CsiGuid, type: String, ids: [String]) async throws(TrustStoreError) -> [FHIRResourceRecord]
    /// One page of a FHIR search in `patient`'s compartment, keeping only resources whose labels
    /// `isVisible` allows. The default implementation (``searchThroughCandidates(_:patient:isVisible:)``)
    /// calls ``searchCandidates(patient:query:)`` and then ``resources(patient:type:ids:)``; a
    /// store may answer an indexed query in one read instead, with the same results.
    func search(_ query: SearchQuery, patient: CsiGuid, isVisible: (SecurityLabels) -> Bool) async throws(TrustStoreError) -> SearchResult

    // MARK: Audit log

    /// The number of entries in the log.
    func auditCount() async throws(TrustStoreError) -> Int
    /// Up to `limit` entries starting at index `from`, in index order.
    func auditRecords(from: Int, limit: Int) async throws(TrustStoreError) -> [AuditRecord]
    /// The entries whose signed request carried a signature with this digest, oldest first.
    func auditRecords(signatureDigest: String) async throws(TrustStoreError) -> [AuditRecord]
    /// Every stored checkpoint note, by tree size ascending.
    func checkpoints() async throws(TrustStoreError) -> [StoredCheckpoint]

    /// Releases connections. The store is not used afterwards.
    func close() async
}

/// What ``TrustStore/ledgerVersionAndResource(patient:type:id:)`` returns.
public struct LedgerVersionAndResource: Sendable {
    /// The store's ``TrustStore/ledgerVersion()``.
    public var ledgerVersion: Int64
    /// The resource, nil when not stored.
    public var resource: FHIRResourceRecord?

    /// Creates the pair.
    public init(ledgerVersion: Int64, resource: FHIRResourceRecord?) {
        self.ledgerVersion = ledgerVersion
        self.resource = resource
    }
}

extension TrustStore {
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

    /// The version, then the resource, in two reads (a store without a single-read form).
    public func ledgerVersionAndResource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> LedgerVersionAndResource {
        let version = try await ledgerVersion()
        return LedgerVersionAndResource(ledgerVersion: version, resource: try await resource(patient: patient, type: type, id: id))
    }

    /// Whether `util/getGloballyUniqueIdentifier` handed out `guid` (and it is still kept).
    public func isIssuedGuid(_ guid: CsiGuid) async throws(TrustStoreError) -> Bool {
        try await issuedGuid(guid) != nil
    }
}
