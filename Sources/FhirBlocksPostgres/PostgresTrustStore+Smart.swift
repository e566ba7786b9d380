import FhirBlocks
import FhirBlocksStore
import Logging
import NIOCore
import PostgresNIO

/// The SMART App Launch part of the store: its reads and the refresh token's single use (its
/// writes are ``TrustSQL``'s, in ``commit(_:)``).
extension PostgresTrustStore {
    public func smartClient(_ clientID: CsiGuid) async throws(TrustStoreError) -> SmartClient? {
        try await rows(TrustSQL.smartClient(clientID)).first.map(PostgresRows.smartClient)
    }

    public func smartClients(limit: Int) async throws(TrustStoreError) -> [SmartClient] {
        var clients: [SmartClient] = []
        for row in try await rows(TrustSQL.smartClients(limit: limit)) { clients.append(try PostgresRows.smartClient(row)) }
        return clients
    }

    public func smartClientCount() async throws(TrustStoreError) -> Int {
        guard let row = try await rows(TrustSQL.smartClientCount).first else { return 0 }
        let (count) = try PostgresRows.decode(row, as: (Int64).self, table: "smart_client")
        return Int(count)
    }

    public func smartAuthorization(id: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await rows(TrustSQL.smartAuthorization(id: id)).first.map(PostgresRows.smartAuthorization)
    }

    public func smartAuthorization(userCode: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await rows(TrustSQL.smartAuthorization(userCode: userCode)).first.map(PostgresRows.smartAuthorization)
    }

    public func smartAuthorization(codeHash: String) async throws(TrustStoreError) -> SmartAuthorization? {
        try await rows(TrustSQL.smartAuthorization(codeHash: codeHash)).first.map(PostgresRows.smartAuthorization)
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
