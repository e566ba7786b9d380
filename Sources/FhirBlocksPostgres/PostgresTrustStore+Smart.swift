import FhirBlocks
import FhirBlocksStore
import Logging
import NIOCore
import PostgresNIO

/// The SMART App Launch part of the store: its reads and the refresh token's single use (its
/// writes are ``TrustSQL``'s, in ``commit(_:)``).
extension PostgresTrustStore {
    public func smartClient(_ clientID: CsiGuid) async throws(TrustStoreError) -> SmartClient? {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT client_id, redirect_uris, client_name, registered_at, public_key FROM smart_client WHERE client_id = \(clientID.rawValue)
                """, logger: logger).collect()
            return try rows.first.map(PostgresRows.smartClient)
        }
    }

    public func smartClientCount() async throws(TrustStoreError) -> Int {
        try await withConnection { connection, logger in
            for try await count in try await connection.query("SELECT COUNT(*) FROM smart_client", logger: logger).decode(Int64.self) {
                return Int(count)
            }
            return 0
        }
    }

    public func smartAuthorization(id: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await smartAuthorization("SELECT \(unescaped: PostgresRows.smartAuthorizationColumns) FROM smart_authorization WHERE id = \(id)")
    }

    public func smartAuthorization(userCode: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await smartAuthorization("SELECT \(unescaped: PostgresRows.smartAuthorizationColumns) FROM smart_authorization WHERE user_code = \(userCode)")
    }

    public func smartAuthorization(codeHash: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await smartAuthorization("SELECT \(unescaped: PostgresRows.smartAuthorizationColumns) FROM smart_authorization WHERE code_hash = \(codeHash)")
    }

    private func smartAuthorization(_ query: PostgresQuery) async throws(TrustStoreError) -> SmartAuthorization? {
        try await withConnection { connection, logger in
            let rows = try await connection.query(query, logger: logger).collect()
            return try rows.first.map(PostgresRows.smartAuthorization)
        }
    }

    /// `TrustSQL.useRefreshToken(hash:)` (the row is locked, marked used and returned as it
    /// was, to exactly one caller: a concurrent update waits for it, then finds `used` set), then,
    /// when it marked nothing, the token as stored (`TrustSQL.refreshToken(hash:)`).
    public func useRefreshToken(hash: String) async throws(TrustStoreError) -> StoredRefreshToken? {
        try await withConnection { connection, logger in
            let marked = try await connection.query(Self.query(TrustSQL.useRefreshToken(hash: hash)), logger: logger).collect()
            if let row = marked.first { return try PostgresRows.refreshToken(row) }
            let rows = try await connection.query(Self.query(TrustSQL.refreshToken(hash: hash)), logger: logger).collect()
            return try rows.first.map(PostgresRows.refreshToken)
        }
    }

    public func refreshToken(hash: String) async throws(TrustStoreError) -> StoredRefreshToken? {
        try await withConnection { connection, logger in
            let rows = try await connection.query(Self.query(TrustSQL.refreshToken(hash: hash)), logger: logger).collect()
            return try rows.first.map(PostgresRows.refreshToken)
        }
    }
}
