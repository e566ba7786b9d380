import FhirBlocks
import Synchronization

/// The statements of ``LinkStore``, written once for both databases (no I/O), like ``TrustSQL``:
/// `?` placeholders, neutral values, conditional writes with `RETURNING`.
public enum LinkSQL {
    /// One statement of a link write, and whether it must return a row (else the transaction
    /// is rolled back and the write reports nothing changed).
    public struct Step: Sendable, Hashable {
        /// The statement.
        public var statement: SQLStatement
        /// Whether the statement (ending in `RETURNING`) must return a row.
        public var expectsRow: Bool

        init(_ statement: SQLStatement, expectsRow: Bool = false) {
            self.statement = statement
            self.expectsRow = expectsRow
        }
    }

    /// How many openings (outcome ``openedOutcome``) a link's access log keeps (the oldest are
    /// deleted beyond).
    public static let openedLogLimit = 1_000
    /// How many refusals (every other outcome) a link's access log keeps, apart from its
    /// openings: however many wrong passcodes or refused requests arrive, they only push out
    /// older refusals, so the owner still sees who opened the link.
    public static let refusalLogLimit = 1_000
    /// The outcome of a request that opened the link.
    public static let openedOutcome = "opened"

    /// The columns a link is read as, in order: id, owner, flags, label, expires_at,
    /// created_at, updated_at, passcode_hash, attempts_left, revoked_at, and its file count.
    public static let linkColumns = """
        l.id, l.owner, l.flags, l.label, l.expires_at, l.created_at, l.updated_at, l.passcode_hash, l.attempts_left, l.revoked_at, \
        (SELECT COUNT(*) FROM shared_link_file f WHERE f.link_id = l.id)
        """

    /// Inserts the link (``TrustStoreError/conflict(_:)`` when its id exists: the insert returns no row), then its files.
    public static func create(_ link: StoredSharedLink, files: [StoredSharedLinkFile]) -> [Step] {
        [Step(SQLStatement("""
            INSERT INTO shared_link (id, owner, flags, label, expires_at, created_at, updated_at, passcode_hash, attempts_left, revoked_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING id
            """, [.text(link.id), .text(link.owner.rawValue), .text(link.flags), .text(link.label), .integer(link.expiresAt?.millisecondsSince1970),
                  .integer(link.createdAt.millisecondsSince1970), .integer(link.updatedAt.millisecondsSince1970), .text(link.passcodeHash),
                  .integer(link.attemptsLeft.map(Int64.init)), .integer(link.revokedAt?.millisecondsSince1970)]), expectsRow: true)]
            + insertFiles(link.id, files)
    }

    static func insertFiles(_ id: String, _ files: [StoredSharedLinkFile]) -> [Step] {
        files.enumerated().map { position, file in
            Step(SQLStatement("INSERT INTO shared_link_file (link_id, position, content_type, jwe) VALUES (?, ?, ?, ?)",
                              [.text(id), .integer(Int64(position)), .text(file.contentType), .text(file.jwe)]))
        }
    }

    /// Sets `updated_at` of `owner`'s live link (a row back, else nothing happens), deletes its
    /// files and inserts the new ones.
    public static func replaceFiles(id: String, owner: CsiGuid, files: [StoredSharedLinkFile], at: Timestamp) -> [Step] {
        [Step(SQLStatement("UPDATE shared_link SET updated_at = ? WHERE id = ? AND owner = ? AND revoked_at IS NULL RETURNING id",
                           [.integer(at.millisecondsSince1970), .text(id), .text(owner.rawValue)]), expectsRow: true),
         Step(SQLStatement("DELETE FROM shared_link_file WHERE link_id = ?", [.text(id)]))]
            + insertFiles(id, files)
    }

    /// Revokes `owner`'s link, keeping the first revocation's time; a row back when `owner` has it.
    public static func revoke(id: String, owner: CsiGuid, at: Timestamp) -> SQLStatement {
        SQLStatement("UPDATE shared_link SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND owner = ? RETURNING id",
                     [.integer(at.millisecondsSince1970), .text(id), .text(owner.rawValue)])
    }

    /// The link with this id.
    public static func link(id: String) -> SQLStatement {
        SQLStatement("SELECT \(linkColumns) FROM shared_link l WHERE l.id = ?", [.text(id)])
    }

    /// `owner`'s links, newest first (creation time, then id, both descending), after `after`
    /// when given: a keyset page (the `shared_link_owner` index), stable while links are added.
    public static func links(owner: CsiGuid, limit: Int, after: SharedLinkListPosition?) -> SQLStatement {
        guard let after else {
            return SQLStatement("SELECT \(linkColumns) FROM shared_link l WHERE l.owner = ? ORDER BY l.created_at DESC, l.id DESC LIMIT ?",
                                [.text(owner.rawValue), .integer(Int64(limit))])
        }
        let created = SQLValue.integer(after.createdAt.millisecondsSince1970)
        return SQLStatement("""
            SELECT \(linkColumns) FROM shared_link l WHERE l.owner = ? AND (l.created_at < ? OR (l.created_at = ? AND l.id < ?))
            ORDER BY l.created_at DESC, l.id DESC LIMIT ?
            """, [.text(owner.rawValue), created, created, .text(after.id), .integer(Int64(limit))])
    }

    /// A link's files (content_type, jwe) in order.
    public static func files(id: String) -> SQLStatement {
        SQLStatement("SELECT content_type, jwe FROM shared_link_file WHERE link_id = ? ORDER BY position", [.text(id)])
    }

    /// One file (content_type, jwe) of a link.
    public static func file(id: String, position: Int) -> SQLStatement {
        SQLStatement("SELECT content_type, jwe FROM shared_link_file WHERE link_id = ? AND position = ?", [.text(id), .integer(Int64(position))])
    }

    /// Takes one attempt where one is left, returning how many are left after it: of parallel
    /// callers, no more get a row than there were attempts.
    public static func reserveAttempt(id: String) -> SQLStatement {
        SQLStatement("UPDATE shared_link SET attempts_left = attempts_left - 1 WHERE id = ? AND attempts_left > 0 RETURNING attempts_left",
                     [.text(id)])
    }

    /// Gives back one attempt.
    public static func returnAttempt(id: String) -> SQLStatement {
        SQLStatement("UPDATE shared_link SET attempts_left = attempts_left + 1 WHERE id = ? AND attempts_left IS NOT NULL", [.text(id)])
    }

    /// Numbers the accesses this process records, so that two in the same millisecond keep
    /// their order.
    private static let accessSequence = Atomic<UInt64>(0)

    /// Appends an access and deletes the link's entries of the same kind (openings, or
    /// refusals) beyond the latest ``openedLogLimit`` or ``refusalLogLimit``: refusals never
    /// delete an opening. Its id is the time in milliseconds and this process's sequence number,
    /// zero-padded, then random hex: ids sort in the order the accesses were recorded.
    public static func recordAccess(_ access: StoredSharedLinkAccess) -> [SQLStatement] {
        var generator = SystemRandomNumberGenerator()
        func padded(_ number: some BinaryInteger, _ width: Int) -> String {
            let text = String(number)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let sequence = accessSequence.wrappingAdd(1, ordering: .relaxed).newValue
        let id = padded(max(0, access.at.millisecondsSince1970), 15) + "-" + padded(sequence, 20) + "-" + String(generator.next() as UInt64, radix: 16)
        let kind = access.opened ? "outcome = ?" : "outcome <> ?"
        let limit = access.opened ? openedLogLimit : refusalLogLimit
        return [
            SQLStatement("INSERT INTO shared_link_access (id, link_id, recipient, at, outcome) VALUES (?, ?, ?, ?, ?)",
                         [.text(id), .text(access.linkID), .text(access.recipient), .integer(access.at.millisecondsSince1970), .text(access.outcome)]),
            SQLStatement("""
                DELETE FROM shared_link_access WHERE link_id = ? AND \(kind) AND id NOT IN
                    (SELECT id FROM shared_link_access WHERE link_id = ? AND \(kind) ORDER BY at DESC, id DESC LIMIT ?)
                """, [.text(access.linkID), .text(openedOutcome), .text(access.linkID), .text(openedOutcome), .integer(Int64(limit))]),
        ]
    }

    /// A link's latest accesses (recipient, at, outcome), newest first: its latest `limit`
    /// openings and its latest `limit` refusals, merged (so a flood of refusals hides no opening).
    public static func accesses(id: String, limit: Int) -> SQLStatement {
        SQLStatement("""
            SELECT recipient, at, outcome FROM (
                SELECT * FROM (SELECT id, recipient, at, outcome FROM shared_link_access WHERE link_id = ? AND outcome = ?
                               ORDER BY at DESC, id DESC LIMIT ?) AS opened
                UNION ALL
                SELECT * FROM (SELECT id, recipient, at, outcome FROM shared_link_access WHERE link_id = ? AND outcome <> ?
                               ORDER BY at DESC, id DESC LIMIT ?) AS refused
            ) AS accesses ORDER BY at DESC, id DESC
            """, [.text(id), .text(openedOutcome), .integer(Int64(limit)), .text(id), .text(openedOutcome), .integer(Int64(limit))])
    }

    /// Deletes the locations expired at `now`, then inserts `locations`.
    public static func addLocations(_ locations: [SharedLinkLocation], now: Timestamp) -> [SQLStatement] {
        [SQLStatement("DELETE FROM shared_link_location WHERE expires_at <= ?", [.integer(now.millisecondsSince1970)])]
            + locations.map { location in
                SQLStatement("INSERT INTO shared_link_location (token, link_id, position, expires_at) VALUES (?, ?, ?, ?)",
                             [.text(location.token), .text(location.linkID), .integer(Int64(location.position)),
                              .integer(location.expiresAt.millisecondsSince1970)])
            }
    }

    /// The location (link_id, position, expires_at) with this token.
    public static func location(token: String) -> SQLStatement {
        SQLStatement("SELECT link_id, position, expires_at FROM shared_link_location WHERE token = ?", [.text(token)])
    }
}
