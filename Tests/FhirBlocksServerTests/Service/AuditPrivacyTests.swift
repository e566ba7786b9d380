import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Testing

/// Who saw whose data is itself private: the log's proofs are public, but an entry's content
/// goes only to the patient it concerns, the agent that acted, and auditors; a grantee with
/// `*` read sees neither the other grantees' Consents nor their AuditEvents.
@Suite struct AuditPrivacyTests {
    /// `/audit/entries` as `token` sees it: each entry's content, nil where withheld.
    static func entries(_ service: TrustService, token: String?) async -> (status: Int, entries: [AuditEntry?]) {
        let response = await TestRouter(service: service).send("GET", "/audit/entries?from=0&count=1000",
                                                                  headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
        guard let page = (try? JSONParser.parse(response.body))?.objectValue else { return (599, []) }
        let entries = (page["entries"]?.arrayValue ?? []).map { element -> AuditEntry? in
            guard let text = element.objectValue?["entry"]?.stringValue,
                  let bytes = try? Base64URL.decode(text, alphabet: .standard, padding: .required) else { return nil }
            return try? AuditEntry(canonicalBytes: bytes)
        }
        return (response.status, entries)
    }

    @Test(arguments: TestBackend.available)
    func entriesConsentsAndAuditEventsGoOnlyToThoseTheyConcern(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let everything = try await world.register(.app("everything"))
            let observer = try await world.register(.app("observer"))
            let auditor = try await world.register(.app("auditor"))
            #expect(try await world.grant(from: wallet, to: [everything], resource: "*", sensitivity: []).status == 200)
            #expect(try await world.grant(from: wallet, to: [observer], resource: "Observation", sensitivity: []).status == 200)
            let walletToken = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            #expect(await world.fhir("PUT", "Observation/o1", token: walletToken,
                                     body: Array(#"{"resourceType":"Observation","id":"o1","status":"final","code":{"text":"x"}}"#.utf8)).status == 201)
            let observerToken = try await world.vacaToken(observer, scope: "patient/Observation.rs conf/V")
            #expect(await world.fhir("GET", "Observation/o1", token: observerToken).status == 200)
            let everythingToken = try await world.vacaToken(everything, scope: "patient/*.rs conf/V")

            // Anonymous: every entry is a leaf hash only.
            let anonymous = await Self.entries(world.service, token: nil)
            #expect(anonymous.status == 200 && !anonymous.entries.isEmpty && anonymous.entries.allSatisfy { $0 == nil })
            // A token that is not active is refused, not treated as anonymous.
            #expect(await Self.entries(world.service, token: "garbage").status == 401)
            // A grantee: its own actions only.
            let asEverything = await Self.entries(world.service, token: everythingToken).entries.compactMap { $0 }
            #expect(!asEverything.isEmpty && asEverything.allSatisfy { $0.agent == everything.csi.rawValue })
            // The wallet: everything about it, the observer's read included.
            let asWallet = await Self.entries(world.service, token: walletToken).entries.compactMap { $0 }
            #expect(asWallet.allSatisfy { $0.patient == wallet.csi.rawValue || $0.agent == wallet.csi.rawValue })
            #expect(asWallet.contains { $0.agent == observer.csi.rawValue && $0.type == .fhirAccess && $0.resources == ["Observation/o1"] })

            // FHIR views: the `*` grantee sees its own Consent and AuditEvents, not the observer's.
            func agents(_ bundle: JSONObject) -> Set<String> {
                Set((bundle["entry"]?.arrayValue ?? []).compactMap {
                    $0.objectValue?["resource"]?.objectValue?["agent"]?.arrayValue?.first?.objectValue?["who"]?.objectValue?["identifier"]?
                        .objectValue?["value"]?.stringValue
                })
            }
            func grantees(_ bundle: JSONObject) -> Int { bundle["entry"]?.arrayValue?.count ?? 0 }
            let theirEvents = world.json(await world.fhir("GET", "AuditEvent", token: everythingToken))
            #expect(agents(theirEvents) == [everything.csi.rawValue])
            #expect(agents(world.json(await world.fhir("GET", "AuditEvent", token: walletToken))).contains(observer.csi.rawValue))
            let theirConsents = world.json(await world.fhir("GET", "Consent", token: everythingToken))
            #expect(grantees(theirConsents) == 1
                    && !String(decoding: JSONWriter.serialize(.object(theirConsents)), as: UTF8.self).contains(observer.csi.rawValue))
            #expect(grantees(world.json(await world.fhir("GET", "Consent", token: walletToken))) == 2)

            // Auditors: only a client the server lists gets the auditor scope, and it reads every entry.
            let refused = try await world.clientCredentials(auditor, scope: PermissionScope.auditorScopeText)
            #expect(refused.status == 400 || refused.status == 403)
            #expect(try await world.grant(from: wallet, to: [auditor], resource: "Observation", sensitivity: []).status == 200)
            let stranger = CsiGuid(randomBytes: [4, 2])
            let restarted = TrustService(store: world.store, configuration: ServerConfiguration(publicURL: TestWorld.base, auditors: [auditor.csi, stranger]),
                                         auditKey: world.service.auditKey, clock: world.clock.trustClock)
            try await restarted.start()
            // A listed GUID nobody registered yet is reported (health serve refuses to start with it).
            #expect(restarted.unregisteredAuditors == [stranger])
            let auditorWorld = TestWorld(service: restarted, store: world.store, clock: world.clock, backend: world.backend)
            let auditorToken = try #require(auditorWorld.json(try await auditorWorld.clientCredentials(auditor, scope: PermissionScope.auditorScopeText,
                                                                                                       patient: auditor))["access_token"]?.stringValue)
            let asAuditor = await Self.entries(restarted, token: auditorToken).entries
            #expect(!asAuditor.isEmpty && asAuditor.allSatisfy { $0 != nil })
            // Being an auditor does not make a second patient: its ordinary token still needs no "patient".
            #expect(try await auditorWorld.vacaToken(auditor, scope: "patient/Observation.rs conf/V").isEmpty == false)
        }
    }
}
