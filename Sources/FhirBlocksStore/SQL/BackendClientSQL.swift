import FhirBlocks

/// The table and statements of ``BackendClientStore``, written once for both databases (no
/// I/O), like ``ExportSQL``.
public enum BackendClientSQL {
    /// SMART Backend Services clients (issue 38): their key set, inline or by URL.
    public static let backendClient = SQLTable("backend_client", [
        SQLColumn("client_id", .text, primaryKey: true), SQLColumn("client_name", .text, nullable: true), SQLColumn("jwks", .text, nullable: true),
        SQLColumn("jwks_uri", .text, nullable: true), SQLColumn("registered_at", .int64),
    ])

    /// The migration that creates the table (`IF NOT EXISTS`).
    static let migration = TrustSchemaMigration("v12-backend-client", [
        .table(backendClient, ifNotExists: Set(SQLDialect.allCases)),
    ])

    /// Inserts the client while fewer than `limit` are stored; a row back unless its id was
    /// taken or `limit` clients are stored already.
    public static func register(_ client: BackendClient, limit: Int) -> SQLStatement {
        SQLStatement("""
            INSERT INTO backend_client (client_id, client_name, jwks, jwks_uri, registered_at) \
            SELECT ?, ?, ?, ?, ? WHERE (SELECT COUNT(*) FROM backend_client) < ? \
            ON CONFLICT (client_id) DO NOTHING RETURNING client_id
            """, [.text(client.clientID.rawValue), .text(client.clientName), .text(client.jwks), .text(client.jwksURI),
                  .integer(client.registeredAt.millisecondsSince1970), .integer(Int64(limit))])
    }

    /// The client with this id: client_id, client_name, jwks, jwks_uri, registered_at.
    public static func client(_ clientID: CsiGuid) -> SQLStatement {
        SQLStatement("SELECT client_id, client_name, jwks, jwks_uri, registered_at FROM backend_client WHERE client_id = ?", [.text(clientID.rawValue)])
    }
}
