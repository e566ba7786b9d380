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

    /// One statement: the row is locked, marked used and returned as it was, so exactly one
    /// caller sees `used == false`.
    public func useRefreshToken(hash: String) async throws(TrustStoreError) -> StoredRefreshToken? {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                UPDATE refresh_token AS t SET used = true
                FROM (SELECT token_hash, used FROM refresh_token WHERE token_hash = \(hash) FOR UPDATE) AS old
                WHERE t.token_hash = old.token_hash
                RETURNING t.token_hash, t.authorization_id, t.client, t.patient, t.scope, t.permission_ids, t.issued_at, t.expires_at, old.used
                """, logger: logger).collect()
            return try rows.first.map(PostgresRows.refreshToken)
        }
    }

    public func refreshToken(hash: String) async throws(TrustStoreError) -> StoredRefreshToken? {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT \(unescaped: PostgresRows.refreshTokenColumns) FROM refresh_token WHERE token_hash = \(hash)
                """, logger: logger).collect()
            return try rows.first.map(PostgresRows.refreshToken)
        }
    }
}
