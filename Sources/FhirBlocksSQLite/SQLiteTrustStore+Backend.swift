import FhirBlocks
import FhirBlocksStore
import GRDB

/// SMART Backend Services clients (``BackendClientStore``): ``BackendClientSQL``'s statements.
extension SQLiteTrustStore {
    public func registerBackendClient(_ client: BackendClient, limit: Int) async throws(TrustStoreError) {
        let statement = BackendClientSQL.register(client, limit: limit)
        guard try await write({ db in try Self.fetchOne(db, statement) != nil }) else { throw .conflict("backend_client") }
    }

    public func backendClient(_ clientID: CsiGuid) async throws(TrustStoreError) -> BackendClient? {
        let statement = BackendClientSQL.client(clientID)
        return try await pointRead { db in
            try Self.fetchOne(db, statement).map { row in
                BackendClient(clientID: try SQLiteTrustRows.csi(row[0], "backend_client"), clientName: row[1], jwks: row[2], jwksURI: row[3],
                              registeredAt: Timestamp(millisecondsSince1970: row[4]))
            }
        }
    }
}
