import FhirBlocks
import FhirBlocksStore
import GRDB

/// The SMART Health Links hosted for wallets (``LinkStore``): ``LinkSQL``'s statements on the
/// writer (one transaction each write) and the readers.
extension SQLiteTrustStore {
    public func createSharedLink(_ link: StoredSharedLink, files: [StoredSharedLinkFile]) async throws(TrustStoreError) {
        guard try await runSteps(LinkSQL.create(link, files: files)) else { throw .conflict("shared_link \(link.id.prefix(8))") }
    }

    public func sharedLink(id: String) async throws(TrustStoreError) -> StoredSharedLink? {
        try await pointRead { db in try Self.fetchOne(db, LinkSQL.link(id: id)).map(Self.sharedLink) }
    }

    public func sharedLinks(owner: CsiGuid, limit: Int, after: SharedLinkListPosition?) async throws(TrustStoreError) -> [StoredSharedLink] {
        try await read { db in try Self.fetchAll(db, LinkSQL.links(owner: owner, limit: limit, after: after)).map(Self.sharedLink) }
    }

    public func sharedLinkFiles(id: String) async throws(TrustStoreError) -> [StoredSharedLinkFile] {
        try await read { db in
            try Self.fetchAll(db, LinkSQL.files(id: id)).map { StoredSharedLinkFile(contentType: $0[0], jwe: $0[1]) }
        }
    }

    public func sharedLinkFile(id: String, position: Int) async throws(TrustStoreError) -> StoredSharedLinkFile? {
        try await pointRead { db in
            try Self.fetchOne(db, LinkSQL.file(id: id, position: position)).map { StoredSharedLinkFile(contentType: $0[0], jwe: $0[1]) }
        }
    }

    public func replaceSharedLinkFiles(id: String, owner: CsiGuid, files: [StoredSharedLinkFile], at: Timestamp) async throws(TrustStoreError) -> Bool {
        try await runSteps(LinkSQL.replaceFiles(id: id, owner: owner, files: files, at: at))
    }

    public func revokeSharedLink(id: String, owner: CsiGuid, at: Timestamp) async throws(TrustStoreError) -> Bool {
        let statement = LinkSQL.revoke(id: id, owner: owner, at: at)
        return try await write { db in try Self.fetchOne(db, statement) != nil }
    }

    public func reserveSharedLinkAttempt(id: String) async throws(TrustStoreError) -> Int? {
        let statement = LinkSQL.reserveAttempt(id: id)
        return try await write { db in try Self.fetchOne(db, statement).map { row -> Int in row[0] } }
    }

    public func returnSharedLinkAttempt(id: String) async throws(TrustStoreError) {
        let statement = LinkSQL.returnAttempt(id: id)
        try await write { db in try Self.execute(db, statement) }
    }

    public func recordSharedLinkAccess(_ access: StoredSharedLinkAccess) async throws(TrustStoreError) {
        let statements = LinkSQL.recordAccess(access)
        try await write { db in
            for statement in statements { try Self.execute(db, statement) }
        }
    }

    public func sharedLinkAccesses(id: String, limit: Int) async throws(TrustStoreError) -> [StoredSharedLinkAccess] {
        try await read { db in
            try Self.fetchAll(db, LinkSQL.accesses(id: id, limit: limit)).map { row in
                StoredSharedLinkAccess(linkID: id, recipient: row[0], at: Timestamp(millisecondsSince1970: row[1]), outcome: row[2])
            }
        }
    }

    public func addSharedLinkLocations(_ locations: [SharedLinkLocation], now: Timestamp) async throws(TrustStoreError) {
        let statements = LinkSQL.addLocations(locations, now: now)
        try await write { db in
            for statement in statements { try Self.execute(db, statement) }
        }
    }

    public func sharedLinkLocation(token: String) async throws(TrustStoreError) -> SharedLinkLocation? {
        try await pointRead { db in
            try Self.fetchOne(db, LinkSQL.location(token: token)).map { row in
                SharedLinkLocation(token: token, linkID: row[0], position: row[1], expiresAt: Timestamp(millisecondsSince1970: row[2]))
            }
        }
    }

    // MARK: Plumbing

    /// Runs `steps` in one transaction; false (rolled back) when a step that must return a row did not.
    private func runSteps(_ steps: [LinkSQL.Step]) async throws(TrustStoreError) -> Bool {
        let missed = "shared_link: no row"
        do {
            try await write { db in
                for step in steps {
                    if step.expectsRow {
                        guard try Self.fetchOne(db, step.statement) != nil else { throw TrustStoreError.conflict(missed) }
                    } else {
                        try Self.execute(db, step.statement)
                    }
                }
            }
            return true
        } catch .conflict(let what) where what == missed {
            return false
        }
    }

    static func fetchOne(_ db: Database, _ statement: SQLStatement) throws -> Row? {
        try Row.fetchOne(db, sql: statement.sql, arguments: arguments(statement.arguments))
    }

    static func fetchAll(_ db: Database, _ statement: SQLStatement) throws -> [Row] {
        try Row.fetchAll(db, sql: statement.sql, arguments: arguments(statement.arguments))
    }

    static func execute(_ db: Database, _ statement: SQLStatement) throws {
        try db.execute(sql: statement.sql, arguments: arguments(statement.arguments))
    }

    static func sharedLink(_ row: Row) throws -> StoredSharedLink {
        let expires: Int64? = row[4], attempts: Int64? = row[8], revoked: Int64? = row[9]
        return StoredSharedLink(id: row[0], owner: try SQLiteTrustRows.csi(row[1], "shared_link"), flags: row[2], label: row[3],
                                expiresAt: expires.map(Timestamp.init(millisecondsSince1970:)), createdAt: Timestamp(millisecondsSince1970: row[5]),
                                updatedAt: Timestamp(millisecondsSince1970: row[6]), passcodeHash: row[7], attemptsLeft: attempts.map { Int($0) },
                                revokedAt: revoked.map(Timestamp.init(millisecondsSince1970:)), fileCount: row[10])
    }
}
