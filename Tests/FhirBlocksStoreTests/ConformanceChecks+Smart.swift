import FhirBlocks
import FhirBlocksStore
import Foundation
import Testing

extension ConformanceChecks {
    // MARK: SMART App Launch

    static func smartClientsRoundTrip(_ session: StoreSession) async throws {
        let store = session.store
        let client = SmartClient(clientID: Fixtures.csi(), redirectURIs: ["https://a.example/cb", "http://127.0.0.1:8080/cb?x=1"],
                                 clientName: "App ü", registeredAt: Fixtures.t0)
        let unnamed = SmartClient(clientID: Fixtures.csi(), redirectURIs: ["https://b.example/cb"], clientName: nil, registeredAt: Fixtures.t0,
                                  publicKey: try Fixtures.key(1))
        #expect(try await store.smartClientCount() == 0)
        var change = TrustChange()
        change.smartClients = [client, unnamed]
        try await store.commit(change)
        #expect(try await store.smartClient(client.clientID) == client)
        #expect(try await store.smartClient(unnamed.clientID) == unnamed)
        #expect(try await store.smartClient(Fixtures.csi()) == nil)
        #expect(try await store.smartClientCount() == 2)
    }

    static func smartAuthorizationTransitions(_ session: StoreSession) async throws {
        let store = session.store
        let pending = SmartAuthorization(id: "auth-1", userCode: "BCDFGHJK", client: Fixtures.csi(), redirectURI: "https://a.example/cb",
                                         requestedScope: "patient/*.rs offline_access", state: nil, codeChallenge: String(repeating: "c", count: 43),
                                         createdAt: Fixtures.t0, expiresAt: Fixtures.t0.adding(seconds: 600))
        var change = TrustChange()
        change.smartAuthorizations = [SmartAuthorizationWrite(pending, expecting: nil)]
        try await store.commit(change)
        #expect(try await store.smartAuthorization(id: "auth-1") == pending)
        #expect(try await store.smartAuthorization(userCode: "BCDFGHJK") == pending)
        #expect(try await store.smartAuthorization(userCode: "ZZZZZZZZ") == nil)

        // Inserting the same id again conflicts, and nothing of that change is stored.
        var again = TrustChange()
        again.smartAuthorizations = [SmartAuthorizationWrite(pending, expecting: nil)]
        again.smartClients = [SmartClient(clientID: Fixtures.csi(), redirectURIs: ["https://c.example"], clientName: nil, registeredAt: Fixtures.t0)]
        await #expect(throws: TrustStoreError.self) { try await store.commit(again) }
        #expect(try await store.smartClientCount() == 0)

        // pending → approved succeeds once; a second move from pending conflicts.
        var approved = pending
        approved.status = .approved
        approved.patient = Fixtures.csi()
        approved.grantedScope = try Fixtures.grantedScope()
        approved.permissionIDs = [PermissionID("p-1"), PermissionID("p-2")]
        approved.offline = true
        var approve = TrustChange()
        approve.smartAuthorizations = [SmartAuthorizationWrite(approved, expecting: .pending)]
        try await store.commit(approve)
        await #expect(throws: TrustStoreError.self) { try await store.commit(approve) }
        #expect(try await store.smartAuthorization(id: "auth-1") == approved)

        var issued = approved
        issued.status = .codeIssued
        issued.codeHash = String(repeating: "ab", count: 32)
        issued.codeExpiresAt = Fixtures.t0.adding(seconds: 660)
        var issue = TrustChange()
        issue.smartAuthorizations = [SmartAuthorizationWrite(issued, expecting: .approved)]
        try await store.commit(issue)
        #expect(try await store.smartAuthorization(codeHash: String(repeating: "ab", count: 32)) == issued)

        // The purge keeps an authorization until both its wait and its code are over.
        var purge = TrustChange()
        purge.smartAuthorizationsExpiringBefore = Fixtures.t0.adding(seconds: 650)
        try await store.commit(purge)
        #expect(try await store.smartAuthorization(id: "auth-1") != nil)
        purge.smartAuthorizationsExpiringBefore = Fixtures.t0.adding(seconds: 661)
        try await store.commit(purge)
        #expect(try await store.smartAuthorization(id: "auth-1") == nil)
    }

    static func smartAuthorizationConcurrentMoves(_ session: StoreSession) async throws {
        let store = session.store
        let pending = SmartAuthorization(id: "auth-c", userCode: "CCCCDDDD", client: Fixtures.csi(), redirectURI: "https://a.example/cb",
                                         requestedScope: "patient/*.rs", state: "s", codeChallenge: String(repeating: "c", count: 43),
                                         createdAt: Fixtures.t0, expiresAt: Fixtures.t0.adding(seconds: 600))
        var create = TrustChange()
        create.smartAuthorizations = [SmartAuthorizationWrite(pending, expecting: nil)]
        try await store.commit(create)
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    var moved = pending
                    moved.status = index.isMultiple(of: 2) ? .approved : .declined
                    var change = TrustChange()
                    change.smartAuthorizations = [SmartAuthorizationWrite(moved, expecting: .pending)]
                    do {
                        try await store.commit(change)
                        return true
                    } catch let error as TrustStoreError {
                        guard case .conflict = error else { throw error }
                        return false
                    }
                }
            }
            var wins = 0
            for try await won in group where won { wins += 1 }
            return wins
        }
        #expect(wins == 1)
    }

    static func refreshTokenUsedOnce(_ session: StoreSession) async throws {
        let store = session.store
        let token = StoredRefreshToken(tokenHash: String(repeating: "0f", count: 32), authorizationID: "auth-1", client: Fixtures.csi(),
                                       patient: Fixtures.csi(), scope: try Fixtures.grantedScope(), permissionIDs: [PermissionID("p-1")],
                                       issuedAt: Fixtures.t0, expiresAt: Fixtures.t0.adding(seconds: 86_400))
        let other = StoredRefreshToken(tokenHash: String(repeating: "1e", count: 32), authorizationID: "auth-1", client: token.client,
                                       patient: token.patient, scope: token.scope, permissionIDs: [], issuedAt: Fixtures.t0,
                                       expiresAt: Fixtures.t0.adding(seconds: 60))
        var change = TrustChange()
        change.refreshTokens = [token, other]
        try await store.commit(change)
        #expect(try await store.useRefreshToken(hash: token.tokenHash) == token)
        var used = token
        used.used = true
        #expect(try await store.useRefreshToken(hash: token.tokenHash) == used)
        #expect(try await store.useRefreshToken(hash: String(repeating: "ff", count: 32)) == nil)
        // Concurrent uses of one token: exactly one sees it unused.
        let fresh = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 {
                group.addTask { try await store.useRefreshToken(hash: other.tokenHash)?.used == false }
            }
            var count = 0
            for try await won in group where won { count += 1 }
            return count
        }
        #expect(fresh == 1)
    }
}
