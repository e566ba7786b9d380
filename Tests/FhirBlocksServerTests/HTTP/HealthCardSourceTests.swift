import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import SmartHealthCards
import Testing

/// Issue 33: `$health-cards-issue` signs only data whose origin the issuer knows: resources a
/// listed card source wrote (`health serve --card-source`), or that a Provenance a card source
/// wrote targets. A wallet's invented Immunization, or an app's, is refused with an
/// OperationOutcome; with no card source nothing is signed. End to end over loopback HTTP.
@Suite struct HealthCardSourceTests {
    static let parameters = HealthCardsIssueTests.parameters(["Immunization"])

    static func immunization(lot: String) -> [UInt8] {
        Array(#"""
            {"resourceType":"Immunization","status":"completed",
             "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]},
             "patient":{"reference":"Patient/p1"},"occurrenceDateTime":"2021-01-01","lotNumber":"\#(lot)"}
            """#.utf8)
    }

    static func provenance(targets: [String]) -> [UInt8] {
        let references = targets.map { #"{"reference":"\#($0)"}"# }.joined(separator: ",")
        return Array(#"""
            {"resourceType":"Provenance","target":[\#(references)],"recorded":"2027-01-15T08:00:00Z",
             "agent":[{"who":{"display":"Clinic"}}]}
            """#.utf8)
    }

    /// A request to the running server with a bearer token and a FHIR JSON body.
    static func send(_ server: RunningServer, _ method: String, _ path: String, token: String, body: [UInt8]? = nil) async throws
        -> (status: Int, json: JSONObject) {
        var headers = [("Authorization", "Bearer \(token)")]
        if body != nil { headers.append(("Content-Type", "application/fhir+json")) }
        let response = try await HTTPExchange.send(method == "GET" ? .GET : method == "PUT" ? .PUT : .POST, "\(server.baseURL)/fhir/\(path)",
                                                   headers: headers, body: body)
        return (response.status, (try? JSONParser.parse(response.body))?.objectValue ?? JSONObject())
    }

    /// The id a create answered with.
    static func created(_ response: (status: Int, json: JSONObject)) throws -> String {
        try #require(response.status == 201, "\(response.json)")
        return try #require(response.json["id"]?.stringValue)
    }

    /// The issue answer is a refusal: 422 with an OperationOutcome naming `mentioned`.
    static func expectRefused(_ response: (status: Int, json: JSONObject), mentioning mentioned: [String], _ comment: Comment) {
        #expect(response.status == 422 && response.json["resourceType"] == .string("OperationOutcome"), comment)
        #expect(response.json["issue"]?.arrayValue?.first?["code"] == .string("business-rule"), comment)
        let diagnostics = response.json["issue"]?.arrayValue?.first?["diagnostics"]?.stringValue ?? ""
        for reference in mentioned { #expect(diagnostics.contains(reference), "\(comment): \(diagnostics)") }
        #expect(HealthCardsIssueTests.credentials(response.json).isEmpty)
    }

    @Test(arguments: TestBackend.available)
    func onlyCardSourceDataIsSigned(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "John"))
            let walletToken = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            // An app the patient lets write and read Immunizations, and a clinic the operator lists.
            let app = try await world.register(.app("forger"))
            #expect(try await world.grant(from: wallet, to: [app], resource: "Immunization",
                                          access: "cruds", confidentiality: "N", sensitivity: []).status == 200)
            let clinic = try await world.register(.app("clinic"))
            #expect(try await world.grant(from: wallet, to: [clinic], resource: "*", access: "cruds", confidentiality: "N", sensitivity: []).status == 200)

            // With no card source the server signs nothing, and does not offer to.
            let unsourced = try await RunningServer.start(world.service)
            do {
                #expect(try await Self.send(unsourced, "PUT", "Patient/p1", token: walletToken,
                                            body: Array((#"{"resourceType":"Patient","id":"p1","name":[{"family":"Anyperson"}],"# +
                                                         #""birthDate":"1951-01-20"}"#).utf8)).status == 201)
                let refused = try await Self.send(unsourced, "POST", "Patient/p1/$health-cards-issue", token: walletToken, body: Self.parameters)
                #expect(refused.status == 501 && refused.json["resourceType"] == .string("OperationOutcome"))
                let smart = try await HTTPExchange.send(.GET, "\(unsourced.baseURL)/.well-known/smart-configuration")
                #expect((try? JSONParser.parse(smart.body))?["capabilities"]?.arrayValue?.contains(.string("health-cards")) == false)
            } catch {
                await unsourced.stop()
                throw error
            }
            await unsourced.stop()

            let cardWorld = try await world.withCardSources([clinic.csi])
            let appToken = try await cardWorld.vacaToken(app, scope: "patient/Immunization.cruds conf/N")
            let clinicToken = try await cardWorld.vacaToken(clinic, scope: "patient/*.cruds conf/N")
            let server = try await RunningServer.start(cardWorld.service)
            do {
                let jwks = try await HTTPExchange.send(.GET, "\(server.baseURL)/.well-known/jwks.json")
                let verifier = try HealthCardsIssueTests.verifier(cardWorld, jwks: jwks.body)
                let smart = try await HTTPExchange.send(.GET, "\(server.baseURL)/.well-known/smart-configuration")
                #expect((try? JSONParser.parse(smart.body))?["capabilities"]?.arrayValue?.contains(.string("health-cards")) == true)
                let metadata = try await HTTPExchange.send(.GET, "\(server.baseURL)/fhir/metadata")
                #expect(String(decoding: metadata.body, as: UTF8.self).contains("--card-source"))

                // The wallet invents an Immunization: refused, and so is its own Patient's identity.
                #expect(try await Self.send(server, "PUT", "Immunization/forged", token: walletToken, body: Self.immunization(lot: "FORGED")).status == 201)
                Self.expectRefused(try await Self.send(server, "POST", "Patient/p1/$health-cards-issue", token: walletToken, body: Self.parameters),
                                   mentioning: ["Immunization/forged"], "the wallet's own data")
                // The clinic records the patient: the identity is vouched for, the invented Immunization still is not.
                let patient = try Self.created(try await Self.send(server, "POST", "Patient", token: clinicToken,
                                                                   body: Array((#"{"resourceType":"Patient","name":[{"family":"Anyperson","# +
                                                                                #""given":["John"]}],"birthDate":"1951-01-20"}"#).utf8)))
                let issuePath = "Patient/\(patient)/$health-cards-issue"
                Self.expectRefused(try await Self.send(server, "POST", issuePath, token: walletToken, body: Self.parameters),
                                   mentioning: ["Immunization/forged"], "a wallet's Immunization beside the clinic's Patient")
                // An app with Immunization.c invents one: refused, asked by the wallet or by the app itself.
                let invented = try Self.created(try await Self.send(server, "POST", "Immunization", token: appToken, body: Self.immunization(lot: "APP")))
                Self.expectRefused(try await Self.send(server, "POST", issuePath, token: walletToken, body: Self.parameters),
                                   mentioning: ["Immunization/forged", "Immunization/\(invented)"], "an app's Immunization")
                Self.expectRefused(try await Self.send(server, "POST", issuePath, token: appToken, body: Self.parameters),
                                   mentioning: ["Immunization/\(invented)"], "an app's Immunization, asked by the app")
                // A wallet-written Provenance naming the others vouches for nothing.
                _ = try Self.created(try await Self.send(server, "POST", "Provenance", token: walletToken,
                                                         body: Self.provenance(targets: ["Immunization/forged", "Immunization/\(invented)"])))
                Self.expectRefused(try await Self.send(server, "POST", issuePath, token: walletToken, body: Self.parameters),
                                   mentioning: ["Immunization/forged"], "a wallet's Provenance")

                // The clinic's Immunization is signed, alone, and the card verifies.
                let real = try Self.created(try await Self.send(server, "POST", "Immunization", token: clinicToken, body: Self.immunization(lot: "REAL")))
                let issued = try await Self.send(server, "POST", issuePath, token: walletToken, body: Self.parameters)
                #expect(issued.status == 200)
                let cards = HealthCardsIssueTests.credentials(issued.json)
                try #require(cards.count == 1)
                let report = await verifier.verify(cards[0])
                #expect(report.isValid && report.signatureValid && report.claims?.iss == TestWorld.base, "\(report.errors)")
                let entries = report.bundle?["entry"]?.arrayValue ?? []
                #expect(entries.compactMap { $0["resource"]?["lotNumber"]?.stringValue } == ["REAL"])
                #expect(HealthCardsIssueTests.links(issued.json) == ["0 resource:0 \(TestWorld.base)/fhir/Patient/\(patient)",
                                                                     "0 resource:1 \(TestWorld.base)/fhir/Immunization/\(real)"])

                // The wallet rewrites the clinic's Immunization: the new version is the wallet's, not signed.
                #expect(try await Self.send(server, "PUT", "Immunization/\(real)", token: walletToken, body: Self.immunization(lot: "REWRITTEN")).status == 200)
                Self.expectRefused(try await Self.send(server, "POST", issuePath, token: walletToken, body: Self.parameters),
                                   mentioning: ["Immunization/\(real)"], "a card source's resource rewritten by the wallet")
                // Until the clinic vouches for that version with a Provenance (and for the
                // wallet's Patient by a plain reference written after it).
                cardWorld.clock.advance(seconds: 1)
                _ = try Self.created(try await Self.send(server, "POST", "Provenance", token: clinicToken,
                                                         body: Self.provenance(targets: ["Immunization/\(real)/_history/2",
                                                                                         "\(TestWorld.base)/fhir/Patient/p1"])))
                let vouched = try await Self.send(server, "POST", "Patient/p1/$health-cards-issue", token: walletToken, body: Self.parameters)
                let vouchedCards = HealthCardsIssueTests.credentials(vouched.json)
                try #require(vouched.status == 200 && vouchedCards.count == 1, "\(vouched.json)")
                let vouchedReport = await verifier.verify(vouchedCards[0])
                #expect(vouchedReport.isValid)
                #expect(vouchedReport.bundle?["entry"]?.arrayValue?.compactMap { $0["resource"]?["lotNumber"]?.stringValue } == ["REWRITTEN"])
                // A version after the one the Provenance names is not vouched for.
                #expect(try await Self.send(server, "PUT", "Immunization/\(real)", token: walletToken, body: Self.immunization(lot: "AGAIN")).status == 200)
                Self.expectRefused(try await Self.send(server, "POST", "Patient/p1/$health-cards-issue", token: walletToken, body: Self.parameters),
                                   mentioning: ["Immunization/\(real)"], "a version the Provenance does not name")
                // Refusals are audited.
                let last = try #require(try await cardWorld.store.auditRecords(from: 0, limit: 100_000).last
                    .map { try AuditEntry(canonicalBytes: $0.canonicalBytes) })
                #expect(last.outcome == .minorFailure && last.reason == "unvouched_data" && last.action == "E")
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
    }
}
