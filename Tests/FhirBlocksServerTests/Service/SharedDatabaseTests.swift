import FHIRCore
import FhirBlocks
import FhirBlocksServer
import Foundation
import Testing

/// Two servers on one database (one SQLite file; one PostgreSQL database when available):
/// registrations, grants and revocations committed through one are in force on the other at
/// once, because each request validates the cached ledger against the store's version.
@Suite("Shared database")
struct SharedDatabaseTests {

    @Test(arguments: TestBackend.available)
    func refreshAfterRevocationOnTheOtherServerIsRefused(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { first in
            // Approved and exchanged on the first server; the second starts with the grant in its ledger.
            let wallet = try await first.walletWithObservation()
            let client = try await first.registerSmartClient()
            let code = try await first.approvedCode(wallet: wallet, client: client)
            let token = first.json(await first.exchange(client: client, code: code))
            let access = try #require(token["access_token"]?.stringValue)
            let refreshToken = try #require(token["refresh_token"]?.stringValue)
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
                let revoked = await first.service.revoke(ServiceRequest(method: "POST", path: "/oauth/revoke", body: TestWorld.form([("token", token)])))
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
