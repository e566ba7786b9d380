import ExactJSON
import FhirBlocks
import FhirBlocksServer
import FhirBlocksStore
import Testing

/// The seed's eleven steps through the real service on each real store: ping, time, GUID,
/// registration, public claims, the wallet's grant, the app passing it on, VACA auth and
/// access, both permission listings, a protected FHIR read, and revocation.
@Suite struct TrustServiceFlowTests {
    @Test(arguments: TestBackend.available)
    func elevenSteps(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in

            // 1–3. ping, time, GUID.
            #expect(world.json(await world.smoac("util/ping", method: "GET"))["name"] == .string("fhirblocks-smoac"))
            #expect(world.json(await world.smoac("util/getTime", method: "GET"))["currentTime"] == .string(world.now.wireText))
            // 4. registration of the wallet, the app and a provider.
            let wallet = try await world.register(.wallet("wallet", firstName: "Alice"))
            let app = try await world.register(.app("app"))
            let provider = try await world.register(.app("provider"))
            // 5. the app cannot read the wallet's claims before a permission links them.
            let claimsRequest = FetchPublicClaimsRequest(envelope: world.envelope(app), desiredCsiGuid: wallet.csi.rawValue)
            #expect(await world.smoac("csi/fetchPublicClaims", body: try world.signed(claimsRequest, by: app)).status == 403)
            // 6. the wallet grants the app Patient read up to V with ETH/SOC.
            let walletGrant = try await world.grant(from: wallet, to: [app])
            #expect(walletGrant.status == 200)
            let walletPermission = try #require(world.json(walletGrant)["permissionIds"]?.arrayValue?.first?.stringValue)
            // 5 again: now the claims are released.
            let claimsAgain = FetchPublicClaimsRequest(envelope: world.envelope(app), desiredCsiGuid: wallet.csi.rawValue)
            let claims = world.json(await world.smoac("csi/fetchPublicClaims", body: try world.signed(claimsAgain, by: app)))
            #expect(claims["claims"]?.arrayValue?[1].objectValue?["value"] == .string("Alice"))
            // 7. the app passes a narrower permission on to the provider.
            // It names the patient whose data it passes on (strict mode refuses a grant without).
            let unnamed = try await world.grant(from: app, to: [provider], confidentiality: "N", sensitivity: [])
            #expect(unnamed.status == 400 && String(decoding: unnamed.body, as: UTF8.self).contains("patientCsiGuid"))
            let passed = try await world.grant(from: app, to: [provider], confidentiality: "N", sensitivity: [], patient: wallet)
            #expect(passed.status == 200, "\(String(decoding: passed.body, as: UTF8.self))")
            // …but not a wider one (scope escalation).
            #expect(try await world.grant(from: app, to: [provider], resource: "*", patient: wallet).status == 403)

            // The wallet stores its Patient resource with a token over its own data.
            let walletTokenGrant = world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V sens/ETH sens/SOC"))
            let walletToken = try #require(walletTokenGrant["access_token"]?.stringValue)
            let patient = #"{"resourceType":"Patient","id":"alice","name":[{"family":"Test","given":["Alice"]}],"birthDate":"1970-01-01"}"#
            #expect(await world.fhir("PUT", "Patient/alice", token: walletToken, body: Array(patient.utf8)).status == 201)

            // 8–9. VACA: the app gets a code then a token.
            let token = try await world.vacaToken(app, scope: "patient/Patient.read sens/ETH sens/SOC conf/V")
            // 10–11. listings.
            let byMe = FetchPermissionsGrantedByMeRequest(envelope: world.envelope(app))
            let grantedByApp = world.json(await world.smoac("permission/fetchPermissionsPreviouslyGrantedByMe", body: try world.signed(byMe, by: app)))
            #expect(grantedByApp["permissions"]?.arrayValue?.count == 1)
            let toMe = FetchPermissionsGivenToMeRequest(envelope: world.envelope(app))
            let givenToApp = world.json(await world.smoac("permission/fetchPermissionsGivenToMe", body: try world.signed(toMe, by: app)))
            #expect(givenToApp["permissions"]?.arrayValue?.first?.objectValue?["grantingCsiGuid"] == .string(wallet.csi.rawValue))
            // The README's path name works too.
            let alias = FetchPermissionsGrantedByMeRequest(envelope: world.envelope(wallet))
            #expect(await world.smoac("permission/fetchPermissionsGivenByMe", body: try world.signed(alias, by: wallet)).status == 200)

            // FHIR read with the token.
            let read = await world.fhir("GET", "Patient/alice", token: token)
            #expect(read.status == 200)
            #expect(world.json(read)["name"]?.arrayValue?.first?.objectValue?["family"] == .string("Test"))
            // The app may not read Observations.
            #expect(await world.fhir("GET", "Observation/x", token: token).status == 403)

            // Revocation takes effect on the next request: the token dies, and so does the
            // provider's permission delegated from it.
            let delete = DeletePermissionRequest(envelope: world.envelope(wallet), permissionedGuidBeingDeleted: app.csi.rawValue)
            let revoked = world.json(await world.smoac("permission/deletePermission", body: try world.signed(delete, by: wallet)))
            #expect(revoked["revokedPermissionIds"]?.arrayValue == [.string(walletPermission)])
            #expect(await world.fhir("GET", "Patient/alice", token: token).status == 401)
            #expect(try await world.vacaAuth(provider, scope: "patient/Patient.read").status == 403)

            // Every step left audit entries, in a log whose checkpoint verifies.
            #expect(try await world.store.auditCount() >= 12)
        }
    }

    @Test(arguments: TestBackend.available)
    func consentsAndAuditEventsForTheWallet(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("wallet2", firstName: "Bea"))
            let app = try await world.register(.app("app2"))
            #expect(try await world.grant(from: wallet, to: [app]).status == 200)
            let walletToken = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.rs conf/V"))["access_token"]?.stringValue)
            let consents = world.json(await world.fhir("GET", "Consent", token: walletToken))
            let consent = try #require(consents["entry"]?.arrayValue?.first?.objectValue?["resource"]?.objectValue)
            #expect(consent["resourceType"] == .string("Consent") && consent["status"] == .string("active"))
            let events = world.json(await world.fhir("GET", "AuditEvent", token: walletToken))
            let types = events["entry"]?.arrayValue?.compactMap {
                $0.objectValue?["resource"]?.objectValue?["subtype"]?.arrayValue?.first?.objectValue?["code"]?.stringValue
            } ?? []
            #expect(types.contains("permission-grant") && types.contains("token-issued"))
        }
    }
}
