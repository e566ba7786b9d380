import FhirBlocks
import FhirBlocksStore
import PostgresNIO

/// SMART Backend Services clients (``BackendClientStore``): ``BackendClientSQL``'s statements.
extension PostgresTrustStore {
    public func registerBackendClient(_ client: BackendClient, limit: Int) async throws(TrustStoreError) {
        guard try await !rows(BackendClientSQL.register(client, limit: limit)).isEmpty else { throw .conflict("backend_client") }
    }

    public func backendClient(_ clientID: CsiGuid) async throws(TrustStoreError) -> BackendClient? {
        guard let row = try await rows(BackendClientSQL.client(clientID)).first else { return nil }
        let table = "backend_client"
        let (id, name, jwks, jwksURI, registeredAt) = try PostgresRows.decode(row, as: (String, String?, String?, String?, Int64).self, table: table)
        return BackendClient(clientID: try PostgresRows.csi(id, table: table), clientName: name, jwks: jwks, jwksURI: jwksURI,
                             registeredAt: Timestamp(millisecondsSince1970: registeredAt))
    }
}
