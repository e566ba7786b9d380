import FhirBlocks

/// The FHIR resources' share of a ``TrustStore``: reads of patients' compartments, by id, by
/// page (`Patient/$everything`) and by search. They are written through
/// ``LedgerStore/commit(_:)``.
public protocol ResourceStore: Sendable {
    /// The current version of a resource in `patient`'s compartment, if stored. Ids are
    /// scoped by compartment: the same `type/id` in two compartments are two resources, so no
    /// request can learn whether an id exists in another patient's compartment.
    func resource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> FHIRResourceRecord?
    /// ``LedgerStore/ledgerVersion()`` and ``resource(patient:type:id:)`` together, read in one
    /// read transaction where the store can (so both answers are of the same moment): what a
    /// FHIR read by id needs to confirm the token it resolved against its cached ledger and to
    /// answer, in one trip to the store.
    func ledgerVersionAndResource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> LedgerVersionAndResource
    /// The current resources in `patient`'s compartment, optionally of one type, ordered by
    /// type then id, both in byte order.
    func resources(patient: CsiGuid, type: String?) async throws(TrustStoreError) -> [FHIRResourceRecord]
    /// Up to `limit` current resources of `patient`'s compartment that come after `after` in
    /// (type, id) byte order (from the first when nil), in that order: one page of
    /// `Patient/$everything`, read through an index in that order rather than by sorting the
    /// whole compartment.
    func resources(patient: CsiGuid, after: (type: String, id: String)?, limit: Int) async throws(TrustStoreError) -> [FHIRResourceRecord]
    /// Up to `limit` current resources of `type` in `patient`'s compartment updated after `since`
    /// (strictly; all when nil) and at or before `until` (all when nil) whose ids come after
    /// `afterID` in byte order (from the first when nil), in id byte order: one page of a Bulk
    /// Data export of that type (`_type`, `_since`, cut off at the job's `transactionTime`), read
    /// through the same index as ``resources(patient:after:limit:)`` within the one type.
    func resources(patient: CsiGuid, type: String, since: Timestamp?, until: Timestamp?, afterID: String?,
                   limit: Int) async throws(TrustStoreError) -> [FHIRResourceRecord]
    /// The same page as ``resources(patient:type:since:until:afterID:limit:)``, as the resources' JSON
    /// one after another, each followed by a line feed, in one buffer (``ResourceLines``): what a
    /// Bulk Data export appends to its file, read without a record per resource. The page ends
    /// early, after the resource that brings its bytes to `maximumBytes` or more (at least one
    /// resource), so what it holds is bounded whatever the resources' sizes: a caller reads on
    /// while a page holds `limit` resources or `maximumBytes` bytes. The default implementation
    /// builds it from ``resources(patient:type:since:until:afterID:limit:)``, at most
    /// ``ResourceLines/recordsPerRead`` records a read.
    func resourceLines(patient: CsiGuid, type: String, since: Timestamp?, until: Timestamp?, afterID: String?, limit: Int,
                       maximumBytes: Int) async throws(TrustStoreError) -> ResourceLines
    /// The last recorded writer of each resource of `type` in `patient`'s compartment, by id
    /// (``FHIRResourceWrite/writer``), with the version it wrote: a caller compares it with the
    /// version it read (a later version stored without a writer, or written since, is not that
    /// writer's).
    func resourceWriters(patient: CsiGuid, type: String) async throws(TrustStoreError) -> [String: FHIRResourceWriter]

    /// The patients among `patients` whose compartments hold `type/id` now or held it before a
    /// deletion (``TrustSQL/resourceHolders(type:id:among:dialect:)``), in csiGuid byte order,
    /// each once: where a backend token's read by id goes, found in one read for every granting
    /// patient rather than one per patient. Each holder's copy may still be hidden from a token:
    /// the caller checks.
    func resourceHolders(type: String, id: String, among patients: [CsiGuid]) async throws(TrustStoreError) -> [CsiGuid]

    // MARK: Search

    /// The indexed part of a FHIR search (see ``SearchSQL/candidates(patient:query:distinct:dialect:)``):
    /// the resources of `query.type` in `patient`'s compartment satisfying its token and date
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
}

/// What ``ResourceStore/ledgerVersionAndResource(patient:type:id:)`` returns.
public struct LedgerVersionAndResource: Sendable {
    /// The store's ``LedgerStore/ledgerVersion()``.
    public var ledgerVersion: Int64
    /// The resource, nil when not stored.
    public var resource: FHIRResourceRecord?

    /// Creates the pair.
    public init(ledgerVersion: Int64, resource: FHIRResourceRecord?) {
        self.ledgerVersion = ledgerVersion
        self.resource = resource
    }
}

extension ResourceStore where Self: LedgerStore {
    /// The version, then the resource, in two reads (a store without a single-read form).
    public func ledgerVersionAndResource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> LedgerVersionAndResource {
        let version = try await ledgerVersion()
        return LedgerVersionAndResource(ledgerVersion: version, resource: try await resource(patient: patient, type: type, id: id))
    }
}
