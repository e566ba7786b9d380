import FhirBlocks
import FhirBlocksStore
import GRDB

/// The SMART App Launch reads, and the refresh token's single use.
extension SQLiteTrustStore {
    public func smartClient(_ clientID: CsiGuid) async throws(TrustStoreError) -> SmartClient? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM smart_client WHERE client_id = ?", arguments: [clientID.rawValue]).map(SQLiteTrustRows.smartClient)
        }
    }

    public func smartClientCount() async throws(TrustStoreError) -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM smart_client") ?? 0 }
    }

    public func smartAuthorization(id: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await smartAuthorization(where: "id", equals: id)
    }

    public func smartAuthorization(userCode: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await smartAuthorization(where: "user_code", equals: userCode)
    }

    public func smartAuthorization(codeHash: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await smartAuthorization(where: "code_hash", equals: codeHash)
    }

    /// `column` is one of this file's constants, never input.
    private func smartAuthorization(where column: String, equals value: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM smart_authorization WHERE \(column) = ?", arguments: [value]).map(SQLiteTrustRows.smartAuthorization)
        }
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
