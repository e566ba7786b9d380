import FhirBlocks
import FhirBlocksStore
import Logging
import NIOCore
import PostgresNIO

/// The SMART App Launch part of the store: its share of ``commit(_:)``, its reads and the
/// refresh token's single use.
extension PostgresTrustStore {
    /// Clients, the purge of old authorizations (of pending ones once expired) and of clients
    /// never approved, conditional authorization writes (`INSERT … ON
    /// CONFLICT DO NOTHING` for a new one, `UPDATE … WHERE status = expected` otherwise; no row
    /// back is ``TrustStoreError/conflict(_:)``), refresh tokens.
    static func applySmart(_ change: TrustChange, on connection: PostgresConnection, logger: Logger) async throws {
        if let cutoff = change.smartAuthorizationsExpiringBefore?.millisecondsSince1970 {
            try await connection.query("""
                DELETE FROM smart_authorization WHERE expires_at < \(cutoff) AND (code_expires_at IS NULL OR code_expires_at < \(cutoff))
                """, logger: logger)
        }
        if let cutoff = change.pendingSmartAuthorizationsExpiredBefore?.millisecondsSince1970 {
            try await connection.query("""
                DELETE FROM smart_authorization WHERE status = \(SmartAuthorization.Status.pending.rawValue) AND expires_at < \(cutoff)
                """, logger: logger)
        }
        if let cutoff = change.unapprovedSmartClientsRegisteredBefore?.millisecondsSince1970 {
            try await connection.query("""
                DELETE FROM smart_client WHERE registered_at < \(cutoff)
                    AND NOT EXISTS (SELECT 1 FROM permission WHERE permission.grantee = smart_client.client_id)
                """, logger: logger)
        }
        for client in change.smartClients {
            try await connection.query("""
                INSERT INTO smart_client (client_id, redirect_uris, client_name, registered_at, public_key)
                VALUES (\(client.clientID.rawValue), \(client.redirectURIs), \(client.clientName), \(client.registeredAt.millisecondsSince1970),
                        \(client.publicKey.map { ByteBuffer(bytes: $0.spkiDER) }))
                """, logger: logger)
        }
        for write in change.smartAuthorizations {
            let a = write.authorization
            let rows: [PostgresRow]
            if let expected = write.expectedStatus {
                rows = try await connection.query("""
                    UPDATE smart_authorization SET status = \(a.status.rawValue), patient = \(a.patient?.rawValue),
                        granted_scope = \(a.grantedScope?.storageJSON), permission_ids = \(a.permissionIDs.map(\.rawValue)),
                        offline = \(a.offline), code_hash = \(a.codeHash), code_expires_at = \(a.codeExpiresAt?.millisecondsSince1970)
                    WHERE id = \(a.id) AND status = \(expected.rawValue)
                    RETURNING id
                    """, logger: logger).collect()
            } else {
                rows = try await connection.query("""
                    INSERT INTO smart_authorization (id, user_code, client, redirect_uri, requested_scope, state, code_challenge, created_at,
                        expires_at, status, patient, granted_scope, permission_ids, offline, code_hash, code_expires_at)
                    VALUES (\(a.id), \(a.userCode), \(a.client.rawValue), \(a.redirectURI), \(a.requestedScope), \(a.state), \(a.codeChallenge),
                            \(a.createdAt.millisecondsSince1970), \(a.expiresAt.millisecondsSince1970), \(a.status.rawValue), \(a.patient?.rawValue),
                            \(a.grantedScope?.storageJSON), \(a.permissionIDs.map(\.rawValue)), \(a.offline), \(a.codeHash),
                            \(a.codeExpiresAt?.millisecondsSince1970))
                    ON CONFLICT (id) DO NOTHING
                    RETURNING id
                    """, logger: logger).collect()
            }
            guard !rows.isEmpty else { throw TrustStoreError.conflict("smart_authorization") }
        }
        for token in change.refreshTokens {
            try await connection.query("""
                INSERT INTO refresh_token (token_hash, authorization_id, client, patient, scope, permission_ids, issued_at, expires_at, used)
                VALUES (\(token.tokenHash), \(token.authorizationID), \(token.client.rawValue), \(token.patient.rawValue), \(token.scope.storageJSON),
                        \(token.permissionIDs.map(\.rawValue)), \(token.issuedAt.millisecondsSince1970), \(token.expiresAt.millisecondsSince1970),
                        \(token.used))
                """, logger: logger)
        }
    }

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
