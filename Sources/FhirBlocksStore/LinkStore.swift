import FhirBlocks

/// The SMART Health Links' share of a ``TrustStore``: the links the server hosts for wallets
/// (`health serve`'s `/shl`), their encrypted files, the passcode attempts left, the short-lived
/// file locations handed out in manifests, and who asked for each link.
///
/// The server never holds a link's key: a file is the ciphertext the wallet uploaded (JWE
/// compact), the passcode only a scrypt hash with a per-link salt. The wrong-passcode budget is
/// counted in the database, so servers sharing it share the count: an attempt is reserved
/// atomically (``reserveSharedLinkAttempt(id:)``) before the passcode is evaluated and given back
/// (``returnSharedLinkAttempt(id:)``) when it was right, so no more wrong passcodes are ever
/// evaluated than the link's limit, however many arrive at once. Statements are ``LinkSQL``'s.
public protocol LinkStore: Sendable {
    /// Stores a new link and its files in one transaction; ``TrustStoreError/conflict(_:)`` when
    /// the id is taken.
    func createSharedLink(_ link: StoredSharedLink, files: [StoredSharedLinkFile]) async throws(TrustStoreError)
    /// The link with this id, if any (revoked and expired ones included).
    func sharedLink(id: String) async throws(TrustStoreError) -> StoredSharedLink?
    /// The links `owner` created, newest first (by creation time, then id), at most `limit`,
    /// starting after `after` (a page's last link; nil for the newest): pages that follow each
    /// other by their last link list every link once, however many there are.
    func sharedLinks(owner: CsiGuid, limit: Int, after: SharedLinkListPosition?) async throws(TrustStoreError) -> [StoredSharedLink]
    /// A link's files, in order.
    func sharedLinkFiles(id: String) async throws(TrustStoreError) -> [StoredSharedLinkFile]
    /// One file of a link by its position (from 0), if there.
    func sharedLinkFile(id: String, position: Int) async throws(TrustStoreError) -> StoredSharedLinkFile?
    /// Replaces the files of `owner`'s link `id` (not revoked) and sets its `updatedAt`, in one
    /// transaction; false (nothing changed) when `owner` has no such link or it is revoked.
    func replaceSharedLinkFiles(id: String, owner: CsiGuid, files: [StoredSharedLinkFile], at: Timestamp) async throws(TrustStoreError) -> Bool
    /// Revokes `owner`'s link `id` (the first revocation's time is kept); false when `owner` has
    /// no such link.
    func revokeSharedLink(id: String, owner: CsiGuid, at: Timestamp) async throws(TrustStoreError) -> Bool
    /// Takes one passcode attempt of link `id` in one statement (`attempts_left - 1` where it is
    /// above 0) and returns how many are left after it; nil when none was left (the link is
    /// locked, or unknown, or has no passcode).
    func reserveSharedLinkAttempt(id: String) async throws(TrustStoreError) -> Int?
    /// Gives back an attempt ``reserveSharedLinkAttempt(id:)`` took (the passcode was right).
    func returnSharedLinkAttempt(id: String) async throws(TrustStoreError)
    /// Appends to a link's access log on its own. The log keeps the latest
    /// ``LinkSQL/openedLogLimit`` openings and, apart from them, the latest
    /// ``LinkSQL/refusalLogLimit`` refusals of a link, so refusals never push an opening out.
    /// (The server records a manifest request with its audit entry in one transaction instead:
    /// ``TrustChange/sharedLinkAccesses``.)
    func recordSharedLinkAccess(_ access: StoredSharedLinkAccess) async throws(TrustStoreError)
    /// A link's latest accesses, newest first: its latest `limit` openings and its latest
    /// `limit` other requests (refusals), merged by time.
    func sharedLinkAccesses(id: String, limit: Int) async throws(TrustStoreError) -> [StoredSharedLinkAccess]
    /// Keeps file locations handed out in a manifest, after deleting those expired at `now`.
    func addSharedLinkLocations(_ locations: [SharedLinkLocation], now: Timestamp) async throws(TrustStoreError)
    /// The file location with this token, if kept (expired ones included until purged).
    func sharedLinkLocation(token: String) async throws(TrustStoreError) -> SharedLinkLocation?
}

/// A hosted link as stored.
public struct StoredSharedLink: Sendable, Hashable {
    /// The manifest URL's last segment: 32 random bytes in base64url (43 characters).
    public var id: String
    /// The wallet whose link it is (its patient).
    public var owner: CsiGuid
    /// The flags (`""`, `"P"`, `"L"`, `"LP"`, `"U"`).
    public var flags: String
    /// The label, at most 80 characters.
    public var label: String?
    /// When it stops answering; nil for never.
    public var expiresAt: Timestamp?
    /// When it was created.
    public var createdAt: Timestamp
    /// When its files last changed.
    public var updatedAt: Timestamp
    /// The passcode's hash (`scrypt$…`, with its parameters and salt), nil without passcode.
    public var passcodeHash: String?
    /// The wrong passcodes still tolerated (0: locked), nil without passcode.
    public var attemptsLeft: Int?
    /// When it was revoked.
    public var revokedAt: Timestamp?
    /// How many files it has (read back; ignored when creating).
    public var fileCount: Int

    /// Creates a record.
    /// - Parameters:
    ///   - id: The link's id.
    ///   - owner: The wallet whose link it is.
    ///   - flags: The flags.
    ///   - label: The label.
    ///   - expiresAt: When it expires.
    ///   - createdAt: When it was created.
    ///   - updatedAt: When its files last changed.
    ///   - passcodeHash: The passcode's hash.
    ///   - attemptsLeft: The wrong passcodes still tolerated.
    ///   - revokedAt: When it was revoked.
    ///   - fileCount: How many files it has.
    public init(id: String, owner: CsiGuid, flags: String, label: String?, expiresAt: Timestamp?, createdAt: Timestamp, updatedAt: Timestamp,
                passcodeHash: String?, attemptsLeft: Int?, revokedAt: Timestamp? = nil, fileCount: Int = 0) {
        self.id = id
        self.owner = owner
        self.flags = flags
        self.label = label
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.passcodeHash = passcodeHash
        self.attemptsLeft = attemptsLeft
        self.revokedAt = revokedAt
        self.fileCount = fileCount
    }
}

/// Where a page of a wallet's links ended: the last link listed (its creation time and id, the
/// order the links are listed in), from which the next page starts.
public struct SharedLinkListPosition: Sendable, Hashable {
    /// The last listed link's creation time.
    public var createdAt: Timestamp
    /// The last listed link's id.
    public var id: String

    /// Creates a position.
    /// - Parameters:
    ///   - createdAt: The last listed link's creation time.
    ///   - id: The last listed link's id.
    public init(createdAt: Timestamp, id: String) {
        self.createdAt = createdAt
        self.id = id
    }

    /// The position just after `link`.
    /// - Parameter link: The last link of a page.
    public init(after link: StoredSharedLink) {
        self.init(createdAt: link.createdAt, id: link.id)
    }
}

/// One encrypted file of a hosted link.
public struct StoredSharedLinkFile: Sendable, Hashable {
    /// Its content type.
    public var contentType: String
    /// The JWE compact text, as the wallet uploaded it.
    public var jwe: String

    /// Creates a file.
    /// - Parameters:
    ///   - contentType: Its content type.
    ///   - jwe: The JWE compact text.
    public init(contentType: String, jwe: String) {
        self.contentType = contentType
        self.jwe = jwe
    }
}

/// One request for a link, as its access log keeps it.
public struct StoredSharedLinkAccess: Sendable, Hashable {
    /// The link.
    public var linkID: String
    /// The recipient the request named.
    public var recipient: String
    /// When.
    public var at: Timestamp
    /// What was answered (`opened`, `wrong-passcode`, `refused-locked`, ...).
    public var outcome: String

    /// Whether the link was opened (its manifest or file served), as opposed to a refusal.
    public var opened: Bool { outcome == LinkSQL.openedOutcome }

    /// Creates an entry.
    /// - Parameters:
    ///   - linkID: The link.
    ///   - recipient: The recipient the request named.
    ///   - at: When.
    ///   - outcome: What was answered.
    public init(linkID: String, recipient: String, at: Timestamp, outcome: String) {
        self.linkID = linkID
        self.recipient = recipient
        self.at = at
        self.outcome = outcome
    }
}

/// A file location handed out in a manifest: a random token naming one file of one link until
/// it expires.
public struct SharedLinkLocation: Sendable, Hashable {
    /// The random token (the location URL's last segment).
    public var token: String
    /// The link.
    public var linkID: String
    /// The file's position in the link (from 0).
    public var position: Int
    /// When the location stops answering.
    public var expiresAt: Timestamp

    /// Creates a location.
    /// - Parameters:
    ///   - token: The random token.
    ///   - linkID: The link.
    ///   - position: The file's position.
    ///   - expiresAt: When it stops answering.
    public init(token: String, linkID: String, position: Int, expiresAt: Timestamp) {
        self.token = token
        self.linkID = linkID
        self.position = position
        self.expiresAt = expiresAt
    }
}
