import FhirBlocks
import FhirBlocksStore
import PostgresNIO

extension PostgresTrustStore {
    // MARK: Nonces

    /// Claims `key` with one statement (``TrustSQL/claimNonce(_:expiresAt:now:)``): `INSERT …
    /// ON CONFLICT (key) DO UPDATE … WHERE nonce.expires_at <= now RETURNING`. A row comes back for a new key or an expired one (which
    /// is taken over), none for a live one, so of concurrent callers exactly one wins. About once
    /// a minute of `now`, expired nonces and authorization codes are deleted in the same call.
    public func insertIfAbsent(_ key: NonceKey, expiresAt: Timestamp, now: Timestamp) async throws(NonceStoreError) -> Bool {
        let purge = lastPurge.withLock { last -> Bool in
            guard let previous = last, now.millisecondsSince1970 - previous < Self.purgeInterval else {
                last = now.millisecondsSince1970
                return true
            }
            return false
        }
        do {
            return try await withConnection { connection, logger in
                if purge {
                    for statement in TrustSQL.purgeExpired(now: now) {
                        try await connection.query(Self.query(statement), logger: logger)
                    }
                }
                let rows = try await connection.query(Self.query(TrustSQL.claimNonce(key.description, expiresAt: expiresAt, now: now)),
                                                      logger: logger).collect()
                return !rows.isEmpty
            }
        } catch {
            throw NonceStoreError(reason: "PostgreSQL: \(error)")
        }
    }

    // MARK: Authorization codes

    public func put(_ code: AuthorizationCode) async throws(NonceStoreError) {
        do {
            try await withConnection { connection, logger in
                _ = try await connection.query(Self.query(TrustSQL.insertAuthorizationCode(code)), logger: logger)
            }
        } catch {
            throw NonceStoreError(reason: "PostgreSQL: \(error)")
        }
    }

    /// `DELETE … RETURNING`: the row comes back to exactly one caller.
    public func take(_ code: String) async throws(NonceStoreError) -> AuthorizationCode? {
        do {
            return try await withConnection { connection, logger in
                let rows = try await connection.query(Self.query(TrustSQL.takeAuthorizationCode(code)), logger: logger).collect()
                return try rows.first.map(PostgresRows.authorizationCode)
            }
        } catch {
            throw NonceStoreError(reason: "PostgreSQL: \(error)")
        }
    }
}
