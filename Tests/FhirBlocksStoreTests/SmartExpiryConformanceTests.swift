import FhirBlocks
import FhirBlocksStore
import Testing

/// Issue 33's store behaviours of SMART App Launch, on every backend available: pending
/// authorizations deleted once their wait ended, clients never approved deleted after their
/// lifetime, and a refresh token read without being used (RFC 7009 revocation).
@Suite("TrustStore conformance: SMART expiry")
struct SmartExpiryConformanceTests {
    static var backends: [StoreBackend] { StoreBackends.postgresAvailable ? [.sqlite, .postgres] : [.sqlite] }

    static func authorization(_ id: String, code: String, client: CsiGuid, expiresAt: Timestamp,
                              status: SmartAuthorization.Status = .pending) -> SmartAuthorization {
        SmartAuthorization(id: id, userCode: code, client: client, redirectURI: "https://a.example/cb", requestedScope: "patient/*.rs", state: nil,
                           codeChallenge: String(repeating: "c", count: 43), createdAt: Fixtures.t0, expiresAt: expiresAt, status: status)
    }

    @Test(arguments: backends)
    func expiredPendingAuthorizationsAreDeleted(_ backend: StoreBackend) async throws {
        try await StoreBackends.withSession(backend) { session in
            let store = session.store
            let client = Fixtures.csi()
            let expired = Self.authorization("expired", code: "BBBBBBBB", client: client, expiresAt: Fixtures.t0.adding(seconds: 600))
            let waiting = Self.authorization("waiting", code: "CCCCCCCC", client: client, expiresAt: Fixtures.t0.adding(seconds: 1_200))
            let declined = Self.authorization("declined", code: "DDDDDDDD", client: client, expiresAt: Fixtures.t0.adding(seconds: 600), status: .declined)
            var change = TrustChange()
            change.smartAuthorizations = [expired, waiting, declined].map { SmartAuthorizationWrite($0, expecting: nil) }
            try await store.commit(change)

            var purge = TrustChange()
            purge.pendingSmartAuthorizationsExpiredBefore = Fixtures.t0.adding(seconds: 700)
            #expect(!purge.isEmpty)
            try await store.commit(purge)
            #expect(try await store.smartAuthorization(id: "expired") == nil)
            #expect(try await store.smartAuthorization(userCode: "BBBBBBBB") == nil)
            #expect(try await store.smartAuthorization(id: "waiting") == waiting)
            #expect(try await store.smartAuthorization(id: "declined") == declined)
        }
    }

    @Test(arguments: backends)
    func clientsNeverApprovedAreDeletedAfterTheirLifetime(_ backend: StoreBackend) async throws {
        try await StoreBackends.withSession(backend) { session in
            let store = session.store
            func client(at time: Timestamp) -> SmartClient {
                SmartClient(clientID: Fixtures.csi(), redirectURIs: ["https://a.example/cb"], clientName: nil, registeredAt: time)
            }
            let abandoned = client(at: Fixtures.t0)
            let approved = client(at: Fixtures.t0)
            let young = client(at: Fixtures.t0.adding(seconds: 2 * 86_400))
            var change = TrustChange()
            change.smartClients = [abandoned, approved, young]
            // A wallet approved `approved` once (the permission may since have been revoked).
            let permission = Fixtures.rootPermission(patient: Fixtures.csi(), grantee: approved.clientID)
            change.permissions = [permission]
            try await store.commit(change)
            var revoke = TrustChange()
            revoke.revocations = [PermissionRevocation(id: permission.id, revokedAt: Fixtures.t0.adding(seconds: 60))]
            try await store.commit(revoke)

            var purge = TrustChange()
            purge.unapprovedSmartClientsRegisteredBefore = Fixtures.t0.adding(seconds: 86_400)
            #expect(!purge.isEmpty)
            try await store.commit(purge)
            #expect(try await store.smartClient(abandoned.clientID) == nil)
            #expect(try await store.smartClient(approved.clientID) == approved)
            #expect(try await store.smartClient(young.clientID) == young)
            #expect(try await store.smartClientCount() == 2)
        }
    }

    @Test(arguments: backends)
    func aRefreshTokenIsReadWithoutBeingUsed(_ backend: StoreBackend) async throws {
        try await StoreBackends.withSession(backend) { session in
            let store = session.store
            let token = StoredRefreshToken(tokenHash: String(repeating: "2d", count: 32), authorizationID: "auth-1", client: Fixtures.csi(),
                                           patient: Fixtures.csi(), scope: try Fixtures.grantedScope(), permissionIDs: [PermissionID("p-1")],
                                           issuedAt: Fixtures.t0, expiresAt: Fixtures.t0.adding(seconds: 86_400))
            var change = TrustChange()
            change.refreshTokens = [token]
            try await store.commit(change)
            #expect(try await store.refreshToken(hash: token.tokenHash) == token)
            #expect(try await store.refreshToken(hash: token.tokenHash) == token)
            #expect(try await store.refreshToken(hash: String(repeating: "ff", count: 32)) == nil)
            #expect(try await store.useRefreshToken(hash: token.tokenHash)?.used == false)
            #expect(try await store.refreshToken(hash: token.tokenHash)?.used == true)
        }
    }
}
