import FhirBlocks
import FhirBlocksStore
import GRDB

/// The SMART App Launch reads, and the refresh token's single use.
extension SQLiteTrustStore {
    public func smartClient(_ clientID: CsiGuid) async throws(TrustStoreError) -> SmartClient? {
        let statement = TrustSQL.smartClient(clientID)
        return try await read { db in try Self.fetchOne(db, statement).map(SQLiteTrustRows.smartClient) }
    }

    public func smartClients(limit: Int) async throws(TrustStoreError) -> [SmartClient] {
        let statement = TrustSQL.smartClients(limit: limit)
        return try await read { db in try Self.fetchAll(db, statement).map(SQLiteTrustRows.smartClient) }
    }

    public func smartClientCount() async throws(TrustStoreError) -> Int {
        try await read { db in try Int.fetchOne(db, sql: TrustSQL.smartClientCount.sql) ?? 0 }
    }

    public func smartAuthorization(id: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await smartAuthorization(TrustSQL.smartAuthorization(id: id))
    }

    public func smartAuthorization(userCode: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await smartAuthorization(TrustSQL.smartAuthorization(userCode: userCode))
    }

    public func smartAuthorization(codeHash: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await smartAuthorization(TrustSQL.smartAuthorization(codeHash: codeHash))
    }

    private func smartAuthorization(_ statement: SQLStatement) async throws(TrustStoreError) -> SmartAuthorization? {
        try await read { db in try Self.fetchOne(db, statement).map(SQLiteTrustRows.smartAuthorization) }
    }

    /// `TrustSQL.useRefreshToken(hash:)`, then, when it marked nothing, the token as stored
    /// (`TrustSQL.refreshToken(hash:)`), in one write transaction: exactly one caller sees
    /// `used == false`.
    public func useRefreshToken(hash: String) async throws(TrustStoreError) -> StoredRefreshToken? {
        try await write { db -> StoredRefreshToken? in
            if let row = try Self.fetchOne(db, TrustSQL.useRefreshToken(hash: hash)) { return try SQLiteTrustRows.refreshToken(row) }
            return try Self.fetchOne(db, TrustSQL.refreshToken(hash: hash)).map(SQLiteTrustRows.refreshToken)
        }
    }

    public func refreshToken(hash: String) async throws(TrustStoreError) -> StoredRefreshToken? {
        try await read { db in
            try Self.fetchOne(db, TrustSQL.refreshToken(hash: hash)).map(SQLiteTrustRows.refreshToken)
        }
    }
}
