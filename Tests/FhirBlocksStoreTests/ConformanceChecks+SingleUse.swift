import FhirBlocks
import FhirBlocksStore
import Testing

extension ConformanceChecks {
    // MARK: Nonces

    static func nonceSingleUse(_ session: StoreSession) async throws {
        let store = session.store
        let now = Fixtures.t0
        let key = Fixtures.nonce("n-1")
        #expect(try await store.insertIfAbsent(key, expiresAt: now.adding(seconds: 300), now: now))
        #expect(try await store.insertIfAbsent(key, expiresAt: now.adding(seconds: 300), now: now) == false)
        #expect(try await store.insertIfAbsent(key, expiresAt: now.adding(seconds: 900), now: now.adding(seconds: 299)) == false)
        // Other owner, other namespace, other value: other keys.
        #expect(try await store.insertIfAbsent(Fixtures.nonce("n-1", owner: "other"), expiresAt: now.adding(seconds: 300), now: now))
        #expect(try await store.insertIfAbsent(Fixtures.nonce("n-1", namespace: .assertionID), expiresAt: now.adding(seconds: 300), now: now))
        #expect(try await store.insertIfAbsent(Fixtures.nonce("n-2"), expiresAt: now.adding(seconds: 300), now: now))
    }

    static func nonceExpiryReuse(_ session: StoreSession) async throws {
        let store = session.store
        let now = Fixtures.t0
        let key = Fixtures.nonce()
        #expect(try await store.insertIfAbsent(key, expiresAt: now.adding(seconds: 10), now: now))
        #expect(try await store.insertIfAbsent(key, expiresAt: now.adding(seconds: 20), now: now.adding(milliseconds: 9_999)) == false)
        // At its expiry instant it is expired: it may be used again, with the new expiry.
        #expect(try await store.insertIfAbsent(key, expiresAt: now.adding(seconds: 70), now: now.adding(seconds: 10)))
        #expect(try await store.insertIfAbsent(key, expiresAt: now.adding(seconds: 80), now: now.adding(seconds: 69)) == false)
        #expect(try await store.insertIfAbsent(key, expiresAt: now.adding(seconds: 200), now: now.adding(seconds: 70)))
        // Far later (a purge may run): still single use.
        let later = now.adding(seconds: 3_600)
        #expect(try await store.insertIfAbsent(key, expiresAt: later.adding(seconds: 10), now: later))
        #expect(try await store.insertIfAbsent(key, expiresAt: later.adding(seconds: 10), now: later) == false)
    }

    static func nonceConcurrent(_ session: StoreSession) async throws {
        let store = session.store
        let now = Fixtures.t0
        let key = Fixtures.nonce()
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask { try await store.insertIfAbsent(key, expiresAt: now.adding(seconds: 300), now: now) }
            }
            var wins = 0
            for try await won in group where won { wins += 1 }
            return wins
        }
        #expect(wins == 1)
    }

    // MARK: Authorization codes

    static func codeTakenOnce(_ session: StoreSession) async throws {
        let store = session.store
        let code = try Fixtures.code(client: Fixtures.csi(), patient: Fixtures.csi())
        let other = try Fixtures.code(client: Fixtures.csi(), patient: Fixtures.csi())
        try await store.put(code)
        try await store.put(other)
        let taken = try #require(try await store.take(code.code))
        #expect(taken == code)
        #expect(taken.scope == code.scope)
        #expect(taken.permissionIDs == code.permissionIDs)
        #expect(try await store.take(code.code) == nil)
        #expect(try await store.take(other.code) == other)
        #expect(try await store.take("unknown") == nil)
    }

    static func codeConcurrentTakes(_ session: StoreSession) async throws {
        let store = session.store
        let code = try Fixtures.code(client: Fixtures.csi(), patient: Fixtures.csi())
        try await store.put(code)
        let winners = try await withThrowingTaskGroup(of: AuthorizationCode?.self) { group in
            for _ in 0..<10 {
                group.addTask { try await store.take(code.code) }
            }
            var winners: [AuthorizationCode] = []
            for try await taken in group { if let taken { winners.append(taken) } }
            return winners
        }
        #expect(winners == [code])
    }

    // MARK: Durability

    static func reopenSeesEverything(_ session: StoreSession) async throws {
        let store = session.store
        let wallet = try Fixtures.wallet()
        let app = try Fixtures.app()
        let guid = Fixtures.csi()
        let permission = Fixtures.rootPermission(patient: wallet.csiGuid, grantee: app.csiGuid)
        let token = try Fixtures.token(client: app.csiGuid, patient: wallet.csiGuid, permissions: [permission.id])
        let resource = Fixtures.resource(type: "Observation", id: "hr-1", patient: wallet.csiGuid, version: 1)
        var change = TrustChange()
        change.issuedGuids = [IssuedGuid(guid: guid, issuedAt: Fixtures.t0)]
        change.registrations = [wallet, app]
        change.permissions = [permission]
        change.tokens = [token]
        change.resources = [FHIRResourceWrite(record: resource)]
        change.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "a"), signatureDigest: "sig"),
                               PendingAuditEntry(entry: Fixtures.auditEntry(agent: "b"))]
        change.checkpoints = [StoredCheckpoint(treeSize: 2, note: "checkpoint")]
        try await store.commit(change)
        var revoke = TrustChange()
        revoke.revocations = [PermissionRevocation(id: permission.id, revokedAt: Fixtures.t0.adding(seconds: 1))]
        try await store.commit(revoke)
        let nonce = Fixtures.nonce()
        #expect(try await store.insertIfAbsent(nonce, expiresAt: Fixtures.t0.adding(seconds: 300), now: Fixtures.t0))
        let code = try Fixtures.code(client: app.csiGuid, patient: wallet.csiGuid)
        try await store.put(code)
        await store.close()

        let reopened = try await session.reopen()
        #expect(try await reopened.isIssuedGuid(guid))
        #expect(Set(try await reopened.registrations()) == [wallet, app])
        var revoked = permission
        revoked.revokedAt = Fixtures.t0.adding(seconds: 1)
        #expect(try await reopened.permissions() == [revoked])
        #expect(try await reopened.token(hash: token.tokenHash) == token)
        #expect(try await reopened.resource(patient: wallet.csiGuid, type: "Observation", id: "hr-1") == resource)
        #expect(try await reopened.auditCount() == 2)
        #expect(try await reopened.auditRecords(signatureDigest: "sig").map(\.index) == [0])
        #expect(try await reopened.checkpoints() == [StoredCheckpoint(treeSize: 2, note: "checkpoint")])
        #expect(try await reopened.insertIfAbsent(nonce, expiresAt: Fixtures.t0.adding(seconds: 300), now: Fixtures.t0.adding(seconds: 1)) == false)
        #expect(try await reopened.take(code.code) == code)
        var next = TrustChange()
        next.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "c"))]
        #expect(try await reopened.commit(next) == [2])
    }
}
