import FhirBlocks
import FhirBlocksStore
import Logging
import NIOCore
import PostgresNIO

/// The SMART Health Links hosted for wallets (``LinkStore``): ``LinkSQL``'s statements, each
/// write one transaction. The attempt counter is one `UPDATE … RETURNING` on the shared
/// database, so servers sharing it share the count.
extension PostgresTrustStore {
    public func createSharedLink(_ link: StoredSharedLink, files: [StoredSharedLinkFile]) async throws(TrustStoreError) {
        guard try await runSteps(LinkSQL.create(link, files: files)) else { throw .conflict("shared_link \(link.id.prefix(8))") }
    }

    public func sharedLink(id: String) async throws(TrustStoreError) -> StoredSharedLink? {
        try await rows(LinkSQL.link(id: id)).first.map(Self.sharedLink)
    }

    public func sharedLinks(owner: CsiGuid, limit: Int, after: SharedLinkListPosition?) async throws(TrustStoreError) -> [StoredSharedLink] {
        var links: [StoredSharedLink] = []
        for row in try await rows(LinkSQL.links(owner: owner, limit: limit, after: after)) { links.append(try Self.sharedLink(row)) }
        return links
    }

    public func sharedLinkFiles(id: String) async throws(TrustStoreError) -> [StoredSharedLinkFile] {
        var files: [StoredSharedLinkFile] = []
        for row in try await rows(LinkSQL.files(id: id)) { files.append(try Self.sharedLinkFile(row)) }
        return files
    }

    public func sharedLinkFile(id: String, position: Int) async throws(TrustStoreError) -> StoredSharedLinkFile? {
        try await rows(LinkSQL.file(id: id, position: position)).first.map(Self.sharedLinkFile)
    }

    public func replaceSharedLinkFiles(id: String, owner: CsiGuid, files: [StoredSharedLinkFile], at: Timestamp) async throws(TrustStoreError) -> Bool {
        try await runSteps(LinkSQL.replaceFiles(id: id, owner: owner, files: files, at: at))
    }

    public func revokeSharedLink(id: String, owner: CsiGuid, at: Timestamp) async throws(TrustStoreError) -> Bool {
        try await !rows(LinkSQL.revoke(id: id, owner: owner, at: at)).isEmpty
    }

    public func reserveSharedLinkAttempt(id: String) async throws(TrustStoreError) -> Int? {
        guard let row = try await rows(LinkSQL.reserveAttempt(id: id)).first else { return nil }
        let (left) = try PostgresRows.decode(row, as: (Int64).self, table: "shared_link")
        return Int(left)
    }

    public func returnSharedLinkAttempt(id: String) async throws(TrustStoreError) {
        _ = try await rows(LinkSQL.returnAttempt(id: id))
    }

    public func recordSharedLinkAccess(_ access: StoredSharedLinkAccess) async throws(TrustStoreError) {
        try await runStatements(LinkSQL.recordAccess(access))
    }

    public func sharedLinkAccesses(id: String, limit: Int) async throws(TrustStoreError) -> [StoredSharedLinkAccess] {
        var accesses: [StoredSharedLinkAccess] = []
        for row in try await rows(LinkSQL.accesses(id: id, limit: limit)) {
            let (recipient, at, outcome) = try PostgresRows.decode(row, as: (String, Int64, String).self, table: "shared_link_access")
            accesses.append(StoredSharedLinkAccess(linkID: id, recipient: recipient, at: Timestamp(millisecondsSince1970: at), outcome: outcome))
        }
        return accesses
    }

    public func addSharedLinkLocations(_ locations: [SharedLinkLocation], now: Timestamp) async throws(TrustStoreError) {
        try await runStatements(LinkSQL.addLocations(locations, now: now))
    }

    public func sharedLinkLocation(token: String) async throws(TrustStoreError) -> SharedLinkLocation? {
        guard let row = try await rows(LinkSQL.location(token: token)).first else { return nil }
        let (linkID, position, expiresAt) = try PostgresRows.decode(row, as: (String, Int64, Int64).self, table: "shared_link_location")
        return SharedLinkLocation(token: token, linkID: linkID, position: Int(position), expiresAt: Timestamp(millisecondsSince1970: expiresAt))
    }

    // MARK: Plumbing

    /// Runs `statements` in one transaction.
    private func runStatements(_ statements: [SQLStatement]) async throws(TrustStoreError) {
        try await withTransaction { connection, logger in
            for statement in statements { try await connection.query(Self.query(statement), logger: logger) }
        }
    }

    /// Runs `steps` in one transaction; false (rolled back) when a step that must return a row did not.
    private func runSteps(_ steps: [LinkSQL.Step]) async throws(TrustStoreError) -> Bool {
        let missed = "shared_link: no row"
        do {
            try await withTransaction { connection, logger in
                for step in steps {
                    let rows = try await connection.query(Self.query(step.statement), logger: logger).collect()
                    if step.expectsRow && rows.isEmpty { throw TrustStoreError.conflict(missed) }
                }
            }
            return true
        } catch .conflict(let what) where what == missed {
            return false
        }
    }

    static func sharedLink(_ row: PostgresRow) throws(TrustStoreError) -> StoredSharedLink {
        let table = "shared_link"
        let (id, owner, flags, label, expires, created, updated, passcodeHash, attempts, revoked, fileCount) =
            try PostgresRows.decode(row, as: (String, String, String, String?, Int64?, Int64, Int64, String?, Int64?, Int64?, Int64).self, table: table)
        return StoredSharedLink(id: id, owner: try PostgresRows.csi(owner, table: table), flags: flags, label: label,
                                expiresAt: expires.map(Timestamp.init(millisecondsSince1970:)), createdAt: Timestamp(millisecondsSince1970: created),
                                updatedAt: Timestamp(millisecondsSince1970: updated), passcodeHash: passcodeHash, attemptsLeft: attempts.map { Int($0) },
                                revokedAt: revoked.map(Timestamp.init(millisecondsSince1970:)), fileCount: Int(fileCount))
    }

    static func sharedLinkFile(_ row: PostgresRow) throws(TrustStoreError) -> StoredSharedLinkFile {
        let (contentType, jwe) = try PostgresRows.decode(row, as: (String, String).self, table: "shared_link_file")
        return StoredSharedLinkFile(contentType: contentType, jwe: jwe)
    }
}
