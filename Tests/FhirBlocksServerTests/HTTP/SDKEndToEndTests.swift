import ExactJSON
import FhirBlocks
import FhirBlocksClient
import FhirBlocksServer
import FhirBlocksSQLite
import Foundation
import GRDB
import Testing
import TestSupport

/// The seed's eleven steps with the SDK (`FhirBlocksClient`) against the server over real HTTP
/// on loopback, on each backend; then the audit log re-checked by `AuditVerifier` over HTTP and
/// over the database, and a tampered entry found.
@Suite struct SDKEndToEndTests {
    @Test(arguments: TestBackend.available)
    func elevenStepsOverHTTP(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend, clock: .system, checkpointEvery: 8, publicURL: nil)
        let server = try await RunningServer.start(world.service)
        let client = try FhirBlocksClient(baseURL: server.baseURL, configuration: FhirBlocksClientConfiguration(requestTimeout: .seconds(300)))
        try await withTeardown({ try? await client.shutdown(); await server.stop(); await world.close() }) {

            // 1–3.
            #expect(try await client.ping().name == "fhirblocks-smoac")
            _ = try await client.synchronizeClock()
            // 4.
            let wallet = try await WalletClient.register(client: client, claims: PatientClaims(dateOfBirth: "1970-01-01", firstName: "Alice", lastName: "Test",
                                                                                               gender: "F"))
            let app = try await AppClient.register(client: client)
            let provider = try await AppClient.register(client: client)
            _ = try await wallet.store(try JSONParser.parse(#"{"resourceType":"Patient","id":"alice","name":[{"family":"Test"}]}"#))
            _ = try await wallet.store(try JSONParser.parse(#"{"resourceType":"Observation","id":"o1","status":"final","code":{"text":"pulse"}}"#))
            // 6. the wallet grants the app.
            let now = try await client.serverTime()
            let window = TimeWindow(notBefore: now.adding(seconds: -60), notAfter: now.adding(seconds: 86400))
            let scope = PermissionScope(permissionType: .patient, resource: .all, access: .v1Read, confidentialityCeiling: .N, sensitivities: .none)
            let granted = try await wallet.grant(to: [app.identity.csiGuid], scope: scope, window: window)
            #expect(granted.count == 1)
            // 5. claims.
            #expect(try await app.publicClaims(of: wallet.identity.csiGuid).first { $0.key == "FirstName" }?.value == "Alice")
            // 7. the app passes Observation reads on to the provider.
            var narrower = scope
            narrower.resource = .type("Observation")
            #expect(try await app.grant(to: [provider.identity.csiGuid], scope: narrower,
                                        window: TimeWindow(notBefore: window.notBefore, notAfter: now.adding(seconds: 3600)),
                                        patient: wallet.identity.csiGuid).count == 1)
            // …but not more than it holds.
            var wider = scope
            wider.access = .all
            await #expect(throws: FhirBlocksClientError.self) { try await app.grant(to: [provider.identity.csiGuid], scope: wider,
                                                                                    window: window, patient: wallet.identity.csiGuid) }
            // 8–9. VACA.
            let token = try await app.token(scope: "patient/Patient.read patient/Observation.read", wallet: wallet.identity.csiGuid)
            #expect(token.patient == wallet.identity.csiGuid.rawValue && token.expiresIn == 300)
            let fhir = app.fhir(token: token)
            #expect(try await fhir.read(type: "Patient", id: "alice").objectValue?["id"] == .string("alice"))
            #expect(try await fhir.search(type: "Observation").objectValue?["total"] == .number("1"))
            // 10–11.
            #expect(try await app.permissionsGrantedByMe().count == 1)
            #expect(try await app.permissionsGivenToMe().first?.grantingCsiGuid == wallet.identity.csiGuid.rawValue)
            #expect(try await wallet.permissionsGrantedByMe().count == 1)
            // The provider reads Observations through the delegation, with the token endpoint.
            let providerToken = try await provider.clientCredentialsToken(scope: "patient/Observation.rs", wallet: wallet.identity.csiGuid)
            #expect(try await provider.fhir(token: providerToken).read(type: "Observation", id: "o1").objectValue?["status"] == .string("final"))
            // Revocation: the wallet revokes the app; the app's token and the provider's both stop.
            #expect(try await wallet.revoke(grantee: app.identity.csiGuid) == granted)
            await #expect(throws: FhirBlocksClientError.self) { try await fhir.read(type: "Patient", id: "alice") }
            await #expect(throws: FhirBlocksClientError.self) { try await provider.fhir(token: providerToken).read(type: "Observation", id: "o1") }
            // The wallet sees who accessed its data.
            let events = try await wallet.auditEvents().objectValue?["entry"]?.arrayValue ?? []
            #expect(events.contains { $0.objectValue?["resource"]?.objectValue?["agent"]?.arrayValue?.first?.objectValue?["who"]?.objectValue?["identifier"]?
                .objectValue?["value"] == .string(provider.identity.csiGuid.rawValue) })

            // The whole log verifies over HTTP, and over the database with the server's key.
            // Anonymously every entry is a leaf hash only; the wallet reads its own entries in full.
            let report = try await AuditVerifier().verify(AuditClient(client: client))
            #expect(report.isIntact, "\(report.problems)")
            #expect(report.entriesChecked >= 20 && !report.verifiedCheckpointSizes.isEmpty && report.entriesWithheld == report.entriesChecked)
            let walletReader = AuditClient(client: client, accessToken: try await wallet.token().accessToken)
            let asWallet = try await AuditVerifier().verify(walletReader)
            #expect(asWallet.isIntact && asWallet.entriesWithheld > 0 && asWallet.entriesWithheld < asWallet.entriesChecked)
            let released = try await walletReader.entries(from: 0, count: 1000).records.compactMap { $0.entry.flatMap { try? AuditEntry(canonicalBytes: $0) } }
            #expect(released.allSatisfy { $0.patient == wallet.identity.csiGuid.rawValue || $0.agent == wallet.identity.csiGuid.rawValue })
            let key = AuditLogKey(keyName: world.service.configuration.checkpointKeyName, publicKey: world.service.auditKey.publicKey)
            #expect(try await AuditVerifier().verify(StoreAuditLogSource(store: world.store, key: key)).isIntact)

            // Tampering with a stored entry (SQLite: rewrite its bytes in the file) is found, at its index.
            if backend == .sqlite, let sqlite = world.store as? SQLiteTrustStore {
                // An entry about the wallet inside the checkpointed range, so the wallet can read it.
                let checkpointed = try #require(report.verifiedCheckpointSizes.last)
                let about = try await world.store.auditRecords(from: checkpointed / 2, limit: checkpointed - checkpointed / 2)
                let victim = try #require(about.first {
                    (try? AuditEntry(canonicalBytes: $0.canonicalBytes))?.patient == wallet.identity.csiGuid.rawValue
                }?.index)
                let queue = try DatabaseQueue(path: sqlite.path)
                try await queue.write { db in
                    let bytes = try #require(try Data.fetchOne(db, sql: "SELECT canonical FROM audit_entry WHERE idx = ?", arguments: [victim]))
                    let rewritten = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\"outcome\":0", with: "\"outcome\":4")
                    try db.execute(sql: "UPDATE audit_entry SET canonical = ? WHERE idx = ?", arguments: [Data(rewritten.utf8), victim])
                }
                try queue.close()
                let tampered = try await AuditVerifier().verify(walletReader)
                #expect(!tampered.isIntact && tampered.firstTamperedIndex == victim, "\(tampered.problems)")
                #expect(try await AuditVerifier().verify(StoreAuditLogSource(store: world.store, key: key)).firstTamperedIndex == victim)
            }
        }
    }
}
