import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import SmartHealthCards
import Testing
import TestSupport

/// `POST /fhir/Patient/{id}/$health-cards-issue`: cards from the compartment's Immunizations and
/// lab Observations, signed with the server's issuer key, verifiable with the key set served at
/// `/.well-known/jwks.json`; scoped, label-filtered and audited like reads.
@Suite struct HealthCardsIssueTests {
    static let confidentiality = "http://terminology.hl7.org/CodeSystem/v3-Confidentiality"

    /// The compartment every test starts from: a Patient, three completed Immunizations (one
    /// restricted), one not done, a lab result and a vital sign.
    static let resources: [(String, String)] = [
        ("Patient/p1", #"""
            {"resourceType":"Patient","id":"p1","text":{"status":"generated","div":"<div xmlns=\"http://www.w3.org/1999/xhtml\">John</div>"},
             "name":[{"family":"Anyperson","given":["John","B."]}],"birthDate":"1951-01-20","gender":"male",
             "telecom":[{"system":"phone","value":"555-0100"}],"address":[{"city":"Somewhere"}]}
            """#),
        ("Immunization/imm1", immunization("imm1", date: "2021-01-01", cvx: "207")),
        ("Immunization/imm2", immunization("imm2", date: "2021-01-29", cvx: "207")),
        ("Immunization/skipped", immunization("skipped", date: "2021-02-15", cvx: "207", status: "not-done")),
        ("Immunization/secret", immunization("secret", date: "2021-03-01", cvx: "208",
                                              security: #","meta":{"security":[{"system":"\#(confidentiality)","code":"R"}]}"#)),
        ("Observation/lab1", #"""
            {"resourceType":"Observation","id":"lab1","status":"final",
             "category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],
             "code":{"coding":[{"system":"http://loinc.org","code":"94558-4","display":"SARS-CoV-2 Ag"}]},
             "subject":{"reference":"Patient/p1"},"effectiveDateTime":"2021-02-17",
             "valueCodeableConcept":{"coding":[{"system":"http://snomed.info/sct","code":"260385009","display":"Negative"}],"text":"Negative"}}
            """#),
        ("Observation/vital", #"""
            {"resourceType":"Observation","id":"vital","status":"final",
             "category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],
             "code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]},"subject":{"reference":"Patient/p1"},
             "effectiveDateTime":"2021-02-18","valueQuantity":{"value":60,"unit":"/min"}}
            """#),
    ]

    static func immunization(_ id: String, date: String, cvx: String, status: String = "completed", security: String = "") -> String {
        #"""
        {"resourceType":"Immunization","id":"\#(id)","status":"\#(status)",
         "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"\#(cvx)","display":"COVID-19 vaccine"}]},
         "patient":{"reference":"Patient/p1"},"occurrenceDateTime":"\#(date)","lotNumber":"0000001",
         "performer":[{"actor":{"display":"ABC General Hospital","reference":"Organization/abc"}}]\#(security)}
        """#
    }

    /// A `Parameters` body with these `credentialType`s and extra parameters (JSON members).
    static func parameters(_ types: [String], _ extra: [String] = []) -> [UInt8] {
        let parameters = types.map { #"{"name":"credentialType","valueUri":"\#($0)"}"# } + extra
        return Array(#"{"resourceType":"Parameters","parameter":[\#(parameters.joined(separator: ","))]}"#.utf8)
    }

    static let operation = "Patient/p1/$health-cards-issue"
    static let verifyAt = Date(timeIntervalSince1970: 1_800_000_100)

    /// A world with the compartment stored by the patient's wallet; returns the wallet, its
    /// token and the world served again with the wallet listed as a card source (these tests
    /// are about how cards are made; which writers a card vouches for is
    /// ``HealthCardSourceTests``'s).
    static func compartment(_ world: TestWorld) async throws -> (wallet: TestParty, token: String, world: TestWorld) {
        let wallet = try await world.register(.wallet("w", firstName: "John"))
        let token = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
        for (path, json) in resources {
            let stored = await world.fhir("PUT", path, token: token, body: Array(json.utf8))
            try #require(stored.status == 201, "\(path): \(String(decoding: stored.body, as: UTF8.self))")
        }
        return (wallet, token, try await world.withCardSources([wallet.csi]))
    }

    /// Runs `body` with ``compartment(_:)``'s world, wallet and token on a new world of `backend`.
    static func withCompartment(_ backend: TestBackend, _ body: (TestWorld, TestParty, String) async throws -> Void) async throws {
        try await TestWorld.with(backend) { world in
            let (wallet, token, cardWorld) = try await compartment(world)
            try await body(cardWorld, wallet, token)
        }
    }

    /// A verifier that resolves the world's issuer from the key set the server serves.
    static func verifier(_ world: TestWorld, jwks: [UInt8]? = nil) throws -> SHCVerifier {
        let keySet = try SHCJWKSet(jsonBytes: jwks ?? world.service.healthCardsJWKS().body)
        return SHCVerifier(resolver: StaticKeyResolver([TestWorld.base: keySet]), now: verifyAt)
    }

    static func credentials(_ response: JSONObject) -> [String] {
        (response["parameter"]?.arrayValue ?? []).filter { $0["name"]?.stringValue == "verifiableCredential" }.compactMap { $0["valueString"]?.stringValue }
    }

    /// The `resourceLink`s as (vcIndex, bundledResource, hostedResource).
    static func links(_ response: JSONObject) -> [String] {
        (response["parameter"]?.arrayValue ?? []).filter { $0["name"]?.stringValue == "resourceLink" }.map { link in
            let parts = link["part"]?.arrayValue ?? []
            func part(_ name: String) -> String {
                guard let value = parts.first(where: { $0["name"]?.stringValue == name }) else { return "-" }
                return value["valueUri"]?.stringValue ?? value["valueInteger"].map { "\($0.jsonString())" } ?? "?"
            }
            return "\(part("vcIndex")) \(part("bundledResource")) \(part("hostedResource"))"
        }
    }

    @Test(arguments: TestBackend.available)
    func issuesVerifiableCards(backend: TestBackend) async throws {
        try await Self.withCompartment(backend) { world, wallet, token in
            let verifier = try Self.verifier(world)
            let response = await world.fhir("POST", Self.operation, token: token, body: Self.parameters(["Immunization"]))
            #expect(response.status == 200 && response.contentType == "application/fhir+json")
            let body = world.json(response)
            #expect(body["resourceType"] == .string("Parameters"))
            let cards = Self.credentials(body)
            try #require(cards.count == 1)
            let report = await verifier.verify(cards[0])
            #expect(report.isValid && report.signatureValid, "\(report.errors)")
            #expect(report.warnings.isEmpty, "\(report.warnings)")
            #expect(report.claims?.iss == TestWorld.base)
            #expect(report.claims?.types == [SHCCredentialType.healthCard, SHCCredentialType.immunization])
            #expect(report.header?.kid == world.service.cardIssuerKey?.kid)
            // The bundle: the Patient's identity claims only, then the completed Immunizations the
            // token may read (the wallet's own: the restricted one too), oldest first, minimized
            // (no id, meta or text; resource:N references).
            let bundle = try #require(report.bundle)
            let entries = bundle["entry"]?.arrayValue ?? []
            #expect(entries.map { $0["fullUrl"]?.stringValue } == ["resource:0", "resource:1", "resource:2", "resource:3"])
            #expect(entries[0]["resource"]?.jsonString()
                    == #"{"resourceType":"Patient","name":[{"family":"Anyperson","given":["John","B."]}],"birthDate":"1951-01-20"}"#)
            for entry in entries.dropFirst() {
                let resource = try #require(entry["resource"])
                #expect(resource["resourceType"] == .string("Immunization") && resource["id"] == nil && resource["meta"] == nil)
                #expect(resource["patient"]?["reference"] == .string("resource:0"))
                #expect(resource["vaccineCode"]?["coding"]?[0]?["display"] == nil)
                // A reference to a resource that is not on the card is dropped; its display stays.
                #expect(resource["performer"]?[0]?["actor"]?.jsonString() == #"{"display":"ABC General Hospital"}"#)
            }
            #expect(entries.compactMap { $0["resource"]?["occurrenceDateTime"]?.stringValue } == ["2021-01-01", "2021-01-29", "2021-03-01"])
            #expect(Self.links(body) == ["0 resource:0 \(TestWorld.base)/fhir/Patient/p1", "0 resource:1 \(TestWorld.base)/fhir/Immunization/imm1",
                                         "0 resource:2 \(TestWorld.base)/fhir/Immunization/imm2", "0 resource:3 \(TestWorld.base)/fhir/Immunization/secret"])
            // The issue is audited (action E) with every resource it disclosed.
            let last = try #require(try await world.store.auditRecords(from: 0, limit: 10_000).last.map { try AuditEntry(canonicalBytes: $0.canonicalBytes) })
            #expect(last.type == .fhirAccess && last.outcome == .success && last.action == "E")
            #expect(last.resources == ["Patient/p1", "Immunization/imm1", "Immunization/imm2", "Immunization/secret"])

            // The patient may be named by its csiGuid (the token response's `patient`) too.
            let byGuid = await world.fhir("POST", "Patient/\(wallet.csi.rawValue)/$health-cards-issue", token: token,
                                          body: Self.parameters([SHCCredentialType.laboratory]))
            let labCards = Self.credentials(world.json(byGuid))
            try #require(byGuid.status == 200 && labCards.count == 1)
            let lab = await verifier.verify(labCards[0])
            #expect(lab.isValid && lab.claims?.types == [SHCCredentialType.healthCard, SHCCredentialType.laboratory], "\(lab.errors)")
            #expect(lab.bundle?["entry"]?.arrayValue?.compactMap { $0["resource"]?["resourceType"]?.stringValue } == ["Patient", "Observation"])
            #expect(lab.bundle?["entry"]?[1]?["resource"]?["subject"]?["reference"] == .string("resource:0"))
        }
    }

    @Test func credentialTypesSinceAndIdentityClaims() async throws {
        try await Self.withCompartment(.sqlite) { world, _, token in
            let verifier = try Self.verifier(world)
            func issue(_ types: [String], _ extra: [String] = []) async -> (cards: [SHCVerificationReport], body: JSONObject) {
                let response = await world.fhir("POST", Self.operation, token: token, body: Self.parameters(types, extra))
                #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
                var reports: [SHCVerificationReport] = []
                for card in Self.credentials(world.json(response)) { reports.append(await verifier.verify(card)) }
                #expect(reports.allSatisfy { $0.isValid })
                return (reports, world.json(response))
            }
            // `#health-card` alone: one card per kind, each with its own vcIndex.
            let both = await issue([SHCCredentialType.healthCard])
            #expect(both.cards.map { $0.claims?.types.last } == [SHCCredentialType.immunization, SHCCredentialType.laboratory])
            #expect(Self.links(both.body).map { $0.prefix(2) } == ["0 ", "0 ", "0 ", "0 ", "1 ", "1 "])
            // Types are ANDed and a card holds one kind; unknown types match no card.
            for types in [["Immunization", "Observation"], [SHCCredentialType.covid19], ["Immunization", "Condition"]] {
                let none = await world.fhir("POST", Self.operation, token: token, body: Self.parameters(types))
                #expect(none.status == 200 && String(decoding: none.body, as: UTF8.self) == #"{"resourceType":"Parameters"}"#, "\(types)")
            }
            #expect(await issue([SHCCredentialType.healthCard, "Immunization"]).cards.count == 1)
            // `_since` compares the clinical date.
            let since = await issue([SHCCredentialType.immunization], [#"{"name":"_since","valueDateTime":"2021-01-15"}"#])
            #expect(since.cards.first?.bundle?["entry"]?.arrayValue?.compactMap { $0["resource"]?["occurrenceDateTime"]?.stringValue }
                    == ["2021-01-29", "2021-03-01"])
            let nothingSince = await world.fhir("POST", Self.operation, token: token,
                                                body: Self.parameters(["Immunization"], [#"{"name":"_since","valueDateTime":"2022"}"#]))
            #expect(String(decoding: nothingSince.body, as: UTF8.self) == #"{"resourceType":"Parameters"}"#)
            // includeIdentityClaim limits the Patient's claims.
            let nameOnly = await issue(["Immunization"], [#"{"name":"includeIdentityClaim","valueString":"Patient.name"}"#])
            #expect(nameOnly.cards.first?.bundle?["entry"]?[0]?["resource"]?.jsonString()
                        == #"{"resourceType":"Patient","name":[{"family":"Anyperson","given":["John","B."]}]}"#)
        }
    }

    @Test(arguments: TestBackend.available)
    func scopesLabelsAndRefusals(backend: TestBackend) async throws {
        try await Self.withCompartment(backend) { world, wallet, walletToken in
            let other = try await world.register(.wallet("w2", firstName: "B"))
            let otherToken = try #require(world.json(try await world.clientCredentials(other, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            #expect(await world.fhir("PUT", "Patient/p2", token: otherToken, body: Array(#"{"resourceType":"Patient","id":"p2"}"#.utf8)).status == 201)
            // An app may read Immunizations up to N (so not the restricted one).
            let app = try await world.register(.app("a"))
            #expect(try await world.grant(from: wallet, to: [app], resource: "Immunization", confidentiality: "N", sensitivity: []).status == 200)
            let token = try await world.vacaToken(app, scope: "patient/Immunization.read conf/N")
            let verifier = try Self.verifier(world)

            let response = await world.fhir("POST", Self.operation, token: token, body: Self.parameters([SHCCredentialType.healthCard]))
            let cards = Self.credentials(world.json(response))
            try #require(response.status == 200 && cards.count == 1)
            let report = await verifier.verify(cards[0])
            #expect(report.isValid && report.claims?.types.last == SHCCredentialType.immunization)
            #expect(report.bundle?["entry"]?.arrayValue?.count == 3)   // Patient, imm1, imm2: not the restricted one
            // The wallet itself sees the restricted one too.
            let own = Self.credentials(world.json(await world.fhir("POST", Self.operation, token: walletToken, body: Self.parameters(["Immunization"]))))
            #expect(await verifier.verify(try #require(own.first)).bundle?["entry"]?.arrayValue?.count == 4)

            func auditedRefusal() async throws -> AuditEntry? {
                try await world.store.auditRecords(from: 0, limit: 10_000).last.map { try AuditEntry(canonicalBytes: $0.canonicalBytes) }
            }
            // Without the scope: 403 whatever the patient, audited.
            for body in [Self.parameters(["Observation"]), Self.parameters([SHCCredentialType.laboratory]),
                         Self.parameters(["Immunization", "Observation"])] {
                let refused = await world.fhir("POST", Self.operation, token: token, body: body)
                #expect(refused.status == 403 && world.json(refused)["resourceType"] == .string("OperationOutcome"))
                let entry = try await auditedRefusal()
                #expect(entry?.outcome == .minorFailure && entry?.reason == "insufficient_scope" && entry?.agent == app.csi.rawValue)
            }
            // A patient's own token without those read scopes: refused too (for `#health-card`
            // alone, when it may read no kind of card at all).
            let patientOnly = try #require(world.json(try await world.clientCredentials(other, scope: "patient/Patient.rs"))["access_token"]?.stringValue)
            for types in [["Immunization"], [SHCCredentialType.healthCard]] {
                #expect(await world.fhir("POST", "Patient/p2/$health-cards-issue", token: patientOnly, body: Self.parameters(types)).status == 403)
            }
            let labOnly = try #require(world.json(try await world.clientCredentials(other, scope: "patient/Observation.rs"))["access_token"]?.stringValue)
            #expect(await world.fhir("POST", "Patient/p2/$health-cards-issue", token: labOnly, body: Self.parameters(["Immunization"])).status == 403)
            #expect(await world.fhir("POST", "Patient/p2/$health-cards-issue", token: labOnly,
                                     body: Self.parameters([SHCCredentialType.healthCard])).status == 200)
            // Another patient's id (by resource id or csiGuid) answers like an unknown one, audited.
            let unknown = await world.fhir("POST", "Patient/nobody/$health-cards-issue", token: token, body: Self.parameters(["Immunization"]))
            for id in ["p2", other.csi.rawValue] {
                let refused = await world.fhir("POST", "Patient/\(id)/$health-cards-issue", token: token, body: Self.parameters(["Immunization"]))
                #expect(refused.status == 404 && unknown.status == 404)
                #expect(String(decoding: refused.body, as: UTF8.self).replacingOccurrences(of: id, with: "X")
                            == String(decoding: unknown.body, as: UTF8.self).replacingOccurrences(of: "nobody", with: "X"))
                let entry = try await auditedRefusal()
                #expect(entry?.outcome == .minorFailure && entry?.reason == "not-found" && entry?.resources == ["Patient/\(id)"])
            }
            // Malformed Parameters: 400 OperationOutcome.
            for body in ["not json", #"{"resourceType":"Bundle"}"#, #"{"resourceType":"Parameters"}"#,
                         #"{"resourceType":"Parameters","parameter":[{"name":"credentialType","valueString":"Immunization"}]}"#,
                         #"{"resourceType":"Parameters","parameter":[{"name":"credentialType","valueUri":"Immunization"},"#
                            + #"{"name":"_since","valueDateTime":"soon"}]}"#] {
                let refused = await world.fhir("POST", Self.operation, token: token, body: Array(body.utf8))
                #expect(refused.status == 400 && world.json(refused)["resourceType"] == .string("OperationOutcome"), "\(body)")
            }
            // No token: 401.
            #expect(await world.fhir("POST", Self.operation, token: nil, body: Self.parameters(["Immunization"])).status == 401)
            // `$` percent-encoded is the same operation.
            #expect(await world.fhir("POST", "Patient/p1/%24health-cards-issue", token: token, body: Self.parameters(["Immunization"])).status == 200)
            // The identity claims travel with the card: a Patient above the app's ceiling means no card for it; its id
            // then names no patient the app may see, and answers as an unknown one (issue 38: isTokenPatient checks labels).
            let restrictedPatient = #"{"resourceType":"Patient","id":"p1","name":[{"family":"Anyperson"}],"#
                + #""meta":{"security":[{"system":"\#(Self.confidentiality)","code":"R"}]}}"#
            #expect(await world.fhir("PUT", "Patient/p1", token: walletToken, body: Array(restrictedPatient.utf8)).status == 200)
            let hidden = await world.fhir("POST", Self.operation, token: token, body: Self.parameters(["Immunization"]))
            #expect(hidden.status == 404 && world.json(hidden)["resourceType"] == .string("OperationOutcome"),
                    "\(String(decoding: hidden.body, as: UTF8.self))")
            #expect(Self.credentials(world.json(await world.fhir("POST", Self.operation, token: walletToken,
                                                                 body: Self.parameters(["Immunization"])))).count == 1)
        }
    }

    /// Mutated `Parameters` bodies: a client error or cards that verify, never a 5xx or a crash.
    @Test func mutatedParametersNeverFail500() async throws {
        try await Self.withCompartment(.sqlite) { world, _, token in
            let verifier = try Self.verifier(world)
            let seed = Self.parameters([SHCCredentialType.healthCard, "Immunization"],
                                       [#"{"name":"_since","valueDateTime":"2021-01-15T10:00:00+02:00"}"#,
                                        #"{"name":"includeIdentityClaim","valueString":"Patient.birthDate"}"#,
                                        #"{"name":"credentialValueSet","valueUri":"https://example.org/ValueSet/x"}"#])
            var generator = SplitMix64(seed: 0xCA4D)
            var statuses: [Int: Int] = [:]
            for _ in 0..<300 {
                let response = await world.fhir("POST", Self.operation, token: token, body: RequestFuzzTests.mutate(seed, using: &generator))
                statuses[response.status, default: 0] += 1
                #expect(response.status == 200 || response.status == 400, "\(response.status) \(String(decoding: response.body, as: UTF8.self))")
                #expect(world.json(response)["resourceType"] != nil)
                for card in Self.credentials(world.json(response)) {
                    #expect(await verifier.verify(card).isValid)
                }
            }
            #expect((statuses[400] ?? 0) > 100)
        }
    }

    @Test func discoveryAndKeySet() async throws {
        try await TestWorld.with(.sqlite) { world in
            let key = try #require(world.service.cardIssuerKey)
            let jwks = world.service.healthCardsJWKS()
            #expect(jwks.status == 200 && jwks.headers.contains { $0 == ("Access-Control-Allow-Origin", "*") })
            let keySet = try SHCJWKSet(jsonBytes: jwks.body)
            let jwk = try #require(keySet.keys.first)
            #expect(keySet.keys.count == 1 && jwk.kid == key.kid && jwk.use == "sig" && jwk.alg == "ES256" && jwk.crv == "P-256" && jwk.kty == "EC")
            #expect(jwk.json["d"] == nil)
            // Card issuing is offered once the operator lists card sources, and the operation's
            // documentation says what a card vouches for.
            #expect(world.json(world.service.smartConfiguration())["capabilities"]?.arrayValue?.contains(.string("health-cards")) == false)
            let sourced = try await world.withCardSources([CsiGuid(randomBytes: [3, 3])])
            let smart = sourced.json(sourced.service.smartConfiguration())
            #expect(smart["capabilities"]?.arrayValue?.contains(.string("health-cards")) == true)
            let metadata = sourced.json(await sourced.fhir("GET", "metadata", token: nil))
            let patient = metadata["rest"]?[0]?["resource"]?.arrayValue?.first { $0["type"] == .string("Patient") }
            #expect(patient?["operation"]?[0]?["name"] == .string("health-cards-issue"))
            #expect(patient?["operation"]?[0]?["definition"]?.stringValue?.hasSuffix("OperationDefinition/patient-i-health-cards-issue") == true)
            #expect(patient?["operation"]?[0]?["documentation"]?.stringValue?.contains("--card-source") == true)
        }
        // Without an https public URL (a card's iss) the server does not offer it, and refuses it.
        try await TestWorld.with(.sqlite, publicURL: "http://fb.test") { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let token = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V",
                                                                                  audience: "http://fb.test/oauth/token"))["access_token"]?.stringValue)
            let refused = await world.fhir("POST", "Patient/\(wallet.csi.rawValue)/$health-cards-issue", token: token, body: Self.parameters(["Immunization"]))
            #expect(refused.status == 501 && world.json(refused)["resourceType"] == .string("OperationOutcome"))
            #expect(world.json(world.service.smartConfiguration())["capabilities"]?.arrayValue?.contains(.string("health-cards")) == false)
            let metadata = world.json(await world.fhir("GET", "metadata", token: nil))
            #expect(metadata["rest"]?[0]?["resource"]?.arrayValue?.allSatisfy {
                $0["operation"]?.arrayValue?.contains { $0["name"] == .string("health-cards-issue") } != true
            } == true)
        }
        // Without an issuer key there is no key set.
        let world = try await TestWorld.make(.sqlite, cardIssuerKey: nil)
        #expect(world.service.healthCardsJWKS().status == 404)
        await world.close()
    }
}

private extension JSONValue {
    /// The compact JSON text.
    func jsonString() -> String {
        String(decoding: JSONWriter.serialize(self), as: UTF8.self)
    }

    /// The array element at `index`, or nil.
    subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}
