import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import Testing
import TestSupport

/// Two servers on one database (one SQLite file; one PostgreSQL database when available):
/// registrations, grants and revocations committed through one are in force on the other at
/// once, because each request validates the cached ledger against the store's version. Most
/// cases call the services directly; one goes through two real HTTP servers on loopback (and
/// healthTests' RecordsSyncCommandTests runs two `health serve` processes).
@Suite("Shared database")
struct SharedDatabaseTests {
    /// A wallet with an Observation, a SMART client it approved, and the access and refresh
    /// tokens exchanged on `world`.
    static func approvedTokens(_ world: TestWorld) async throws -> (wallet: TestParty, client: String, access: String, refresh: String) {
        let wallet = try await world.walletWithObservation()
        let client = try await world.registerSmartClient()
        let code = try await world.approvedCode(wallet: wallet, client: client)
        let token = world.json(await world.exchange(client: client, code: code))
        return (wallet, client, try #require(token["access_token"]?.stringValue), try #require(token["refresh_token"]?.stringValue))
    }

    @Test(arguments: TestBackend.available)
    func refreshAfterRevocationOnTheOtherServerIsRefused(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { first in
            // Approved and exchanged on the first server; the second starts with the grant in its ledger.
            let (wallet, client, access, refreshToken) = try await Self.approvedTokens(first)
            try await first.withTwin { second in
                #expect(await second.fhir("GET", "Observation/o1", token: access).status == 200)
                // The wallet revokes the app through the first server; the second refuses at once.
                let clientCsi = try #require(CsiGuid(client))
                let revoke = DeletePermissionRequest(envelope: first.envelope(wallet), permissionedGuidBeingDeleted: clientCsi.rawValue)
                #expect(await first.smoac("permission/deletePermission", body: try first.signed(revoke, by: wallet)).status == 200)
                #expect(await second.fhir("GET", "Observation/o1", token: access).status == 401)
                let refused = await second.refresh(client: client, token: refreshToken)
                #expect(refused.status == 400 && second.json(refused)["error"]?.stringValue == "invalid_grant")
            }
        }
    }

    /// The same over real HTTP: each TrustService behind its own Hummingbird server on a loopback
    /// port; the revocation is posted to the first, and the second refuses the token at once.
    @Test(arguments: TestBackend.available)
    func revocationPostedToOneServerIsInForceOnTheOtherOverHTTP(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { first in
            let (wallet, client, access, _) = try await Self.approvedTokens(first)
            try await first.withTwin { second in
                let one = try await RunningServer.start(first.service)
                let two = try await RunningServer.start(second.service)
                try await withTeardown({
                    await one.stop()
                    await two.stop()
                }) {
                    #expect(one.port != two.port)
                    let bearer = [("Authorization", "Bearer \(access)")]
                    #expect(try await HTTPExchange.send(.GET, "\(two.baseURL)/fhir/Observation/o1", headers: bearer).status == 200)
                    let clientCsi = try #require(CsiGuid(client))
                    let revoke = DeletePermissionRequest(envelope: first.envelope(wallet), permissionedGuidBeingDeleted: clientCsi.rawValue)
                    let revoked = try await HTTPExchange.send(.POST, "\(one.baseURL)/permission/deletePermission",
                                                              headers: [("Content-Type", "application/json")], body: try first.signed(revoke, by: wallet))
                    #expect(revoked.status == 200, "\(String(decoding: revoked.body, as: UTF8.self))")
                    #expect(try await HTTPExchange.send(.GET, "\(two.baseURL)/fhir/Observation/o1", headers: bearer).status == 401)
                    #expect(try await HTTPExchange.send(.GET, "\(one.baseURL)/fhir/Observation/o1", headers: bearer).status == 401)
                }
            }
        }
    }

    /// The second server keeps the token it resolved in memory; revoking the token (RFC 7009)
    /// through the first raises the ledger's version, so the second forgets it and refuses.
    @Test(arguments: TestBackend.available)
    func tokenRevokedOnTheOtherServerIsRefusedAtOnce(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { first in
            try await first.withTwin { second in
                let wallet = try await first.walletWithObservation()
                let token = try #require(first.json(try await first.clientCredentials(wallet, scope: "patient/Observation.rs"))["access_token"]?.stringValue)
                #expect(await second.fhir("GET", "Observation/o1", token: token).status == 200)
                #expect(await second.fhir("GET", "Observation/o1", token: token).status == 200)
                let revoked = try await first.revoke(token, by: wallet)
                #expect(revoked.status == 200)
                #expect(await second.fhir("GET", "Observation/o1", token: token).status == 401)
                #expect(await first.fhir("GET", "Observation/o1", token: token).status == 401)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func codeApprovedOnOneServerIsExchangedOnTheOther(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { first in
            try await first.withTwin { second in
                let wallet = try await first.walletWithObservation()
                let client = try await first.registerSmartClient()
                let code = try await first.approvedCode(wallet: wallet, client: client)
                let access = try #require(second.json(await second.exchange(client: client, code: code))["access_token"]?.stringValue)
                #expect(await second.fhir("GET", "Observation/o1", token: access).status == 200)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func grantThroughOneServerIsHonouredByTheOther(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { first in
            try await first.withTwin { second in
                // The wallet and the app register through the first server after the second started.
                let wallet = try await first.walletWithObservation()
                let app = try await first.register(.app("a"))
                // No grant yet: the second server refuses the app a token.
                #expect(try await second.clientCredentials(app, scope: "patient/Observation.rs", patient: wallet).status != 200)
                #expect(try await first.grant(from: wallet, to: [app], resource: "Observation", sensitivity: []).status == 200)
                let token = try #require(second.json(try await second.clientCredentials(app, scope: "patient/Observation.rs", patient: wallet))["access_token"]?
                    .stringValue)
                #expect(await second.fhir("GET", "Observation/o1", token: token).status == 200)
            }
        }
    }

    /// Many reads at once on both servers: their audit entries are committed in groups, and the
    /// whole log still verifies (dense indexes, every checkpoint consistent) with one entry per read.
    @Test(arguments: TestBackend.available)
    func concurrentReadsKeepTheLogVerifiable(backend: TestBackend) async throws {
        try await TestWorld.with(backend, checkpointEvery: 16) { first in
            try await first.withTwin { second in
                let wallet = try await first.walletWithObservation()
                let token = try #require(first.json(try await first.clientCredentials(wallet, scope: "patient/Observation.rs"))["access_token"]?.stringValue)
                let before = try await first.store.auditCount()
                let reads = 96
                let statuses = await withTaskGroup(of: Int.self) { group in
                    for index in 0..<reads {
                        let world = index.isMultiple(of: 2) ? first : second
                        group.addTask { await world.fhir("GET", "Observation/o1", token: token).status }
                    }
                    return await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 200, count: reads))
                #expect(try await first.store.auditCount() == before + reads)
                await first.service.flushRefusals()
                let key = AuditLogKey(keyName: first.service.configuration.checkpointKeyName, publicKey: first.service.auditKey.publicKey)
                let report = try await AuditVerifier().verify(StoreAuditLogSource(store: first.store, key: key))
                #expect(report.isIntact, "\(report.problems)")
                #expect(report.entriesChecked == before + reads && !report.verifiedCheckpointSizes.isEmpty)
            }
        }
    }
}
