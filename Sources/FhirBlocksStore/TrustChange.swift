import FhirBlocks

/// The writes of one request, applied by ``LedgerStore/commit(_:)`` in one transaction.
public struct TrustChange: Sendable {
    /// GUIDs handed out by `util/getGloballyUniqueIdentifier`.
    public var issuedGuids: [IssuedGuid] = []
    /// Forget every issued GUID handed out before this instant (an unused GUID expires; a
    /// registered one no longer needs its row), so anonymous callers cannot grow the table.
    public var issuedGuidsExpiringBefore: Timestamp?
    /// New registrations.
    public var registrations: [CsiRegistration] = []
    /// New permissions.
    public var permissions: [Permission] = []
    /// Revocations: permission and instant (a permission already revoked keeps its first time).
    public var revocations: [PermissionRevocation] = []
    /// New access tokens (stored by hash).
    public var tokens: [StoredAccessToken] = []
    /// Tokens revoked (RFC 7009), by hash.
    public var revokedTokenHashes: [String] = []
    /// Resources created or replaced (the store assigns the next version).
    public var resources: [FHIRResourceWrite] = []
    /// Audit entries to append, in order.
    public var auditEntries: [PendingAuditEntry] = []
    /// Signed checkpoints to keep.
    public var checkpoints: [StoredCheckpoint] = []
    /// Kept checkpoints whose note is replaced by the same note with witnesses' cosignature lines
    /// added (matched by tree size; a size not kept writes nothing).
    public var cosignedCheckpoints: [StoredCheckpoint] = []
    /// SMART public clients registered (RFC 7591).
    public var smartClients: [SmartClient] = []
    /// SMART authorizations created or moved on (conditionally, see ``SmartAuthorizationWrite``).
    public var smartAuthorizations: [SmartAuthorizationWrite] = []
    /// Forget SMART authorizations that stopped waiting before this instant (and whose code,
    /// if any, expired before it).
    public var smartAuthorizationsExpiringBefore: Timestamp?
    /// Forget SMART authorizations still waiting for the wallet whose wait ended before this
    /// instant (nobody can decide them any more), so anonymous `/authorize` requests cannot grow
    /// the table beyond what their rate allows within one lifetime.
    public var pendingSmartAuthorizationsExpiredBefore: Timestamp?
    /// Forget SMART clients registered before this instant that never completed an
    /// authorization (no permission names them as its grantee), so abandoned dynamic
    /// registrations cannot fill the server's client cap for good.
    public var unapprovedSmartClientsRegisteredBefore: Timestamp?
    /// Refresh tokens issued (stored by hash).
    public var refreshTokens: [StoredRefreshToken] = []
    /// Requests for SMART Health Links to keep in their access logs (``LinkSQL/recordAccess(_:)``),
    /// in the same transaction as the audit entries that record them: both or neither.
    public var sharedLinkAccesses: [StoredSharedLinkAccess] = []

    /// An empty change.
    public init() {}

    /// Whether the change moves the permission ledger (a registration, a permission, a
    /// revocation, or an access token revoked): committing it raises
    /// ``LedgerStore/ledgerVersion()``, so servers that keep tokens in memory drop them too.
    public var changesLedger: Bool {
        !registrations.isEmpty || !permissions.isEmpty || !revocations.isEmpty || !revokedTokenHashes.isEmpty
    }

    /// Whether the change only appends audit entries (such changes may be committed together
    /// in one transaction: nothing in them can conflict).
    public var isAuditOnly: Bool {
        var rest = self
        rest.auditEntries = []
        return rest.isEmpty && !auditEntries.isEmpty
    }

    /// Whether nothing would be written.
    public var isEmpty: Bool {
        issuedGuids.isEmpty && issuedGuidsExpiringBefore == nil && registrations.isEmpty && permissions.isEmpty && revocations.isEmpty && tokens.isEmpty
            && revokedTokenHashes.isEmpty && resources.isEmpty && auditEntries.isEmpty && checkpoints.isEmpty
            && cosignedCheckpoints.isEmpty
            && smartClients.isEmpty && smartAuthorizations.isEmpty && smartAuthorizationsExpiringBefore == nil && refreshTokens.isEmpty
            && pendingSmartAuthorizationsExpiredBefore == nil && unapprovedSmartClientsRegisteredBefore == nil && sharedLinkAccesses.isEmpty
    }
}

/// A GUID handed out by `util/getGloballyUniqueIdentifier`.
public struct IssuedGuid: Sendable, Hashable {
    /// The GUID.
    public var guid: CsiGuid
    /// When.
    public var issuedAt: Timestamp

    /// Creates a record.
    public init(guid: CsiGuid, issuedAt: Timestamp) {
        self.guid = guid
        self.issuedAt = issuedAt
    }
}

/// A revocation to store.
public struct PermissionRevocation: Sendable, Hashable {
    /// The permission.
    public var id: PermissionID
    /// When it stops working.
    public var revokedAt: Timestamp

    /// Creates a revocation.
    public init(id: PermissionID, revokedAt: Timestamp) {
        self.id = id
        self.revokedAt = revokedAt
    }
}

/// An audit entry waiting for its log index.
public struct PendingAuditEntry: Sendable, Hashable {
    /// The entry (its canonical bytes are stored and hashed).
    public let entry: AuditEntry
    /// The entry's canonical bytes (`AuditEntry.canonicalBytes`), serialized once
    /// when the pending entry is made: the store keeps them and the server's leaf cache hashes
    /// the same bytes.
    public let canonicalBytes: [UInt8]
    /// The entry's Merkle leaf, `SHA-256(0x00 ‖ canonicalBytes)`, computed once.
    public let leafHash: MerkleHash
    /// Lowercase hex SHA-256 of the request signature, when the request was signed (lets
    /// `audit/validate` find it). Kept beside the entry, outside the hashed bytes.
    public var signatureDigest: String?

    /// Creates a pending entry.
    public init(entry: AuditEntry, signatureDigest: String? = nil) {
        self.entry = entry
        canonicalBytes = entry.canonicalBytes
        leafHash = .leaf(canonicalBytes)
        self.signatureDigest = signatureDigest
    }
}
