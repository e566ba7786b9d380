import CommonSupport
import Crypto
import ExactJSON
import Foundation
import Testing
@testable import SmartHealthCards

@Suite struct IssuingTests {
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func generatedKeyIsAConformingJWK() throws {
        let key = SHCIssuerKey.generate()
        let jwk = key.publicJWK
        #expect(jwk.kid == key.kid)
        #expect(jwk.thumbprint == key.kid)
        #expect(key.kid.utf8.count == 43)
        #expect(jwk.problems.isEmpty)
        #expect(jwk.isValidSigningKey)
        #expect(jwk.json.objectValue?.members.map(\.key) == ["kty", "kid", "use", "alg", "crv", "x", "y"])
        // The private JWK reads back as the same key; the public JWKS has no "d".
        let again = try SHCIssuerKey(privateJWKBytes: key.privateJWK)
        #expect(again.kid == key.kid)
        #expect(again.privateKey.rawRepresentation == key.privateKey.rawRepresentation)
        let published = try SHCJWKSet(jsonBytes: key.publicJWKS)
        #expect(published.keys == [jwk])
        #expect(!String(decoding: key.publicJWKS, as: UTF8.self).contains("\"d\""))
        // A mismatched d / x is refused.
        let other = SHCIssuerKey.generate()
        let mixed = try SHCLimits.default.parseJSON(key.privateJWK).setting(["d"], try SHCLimits.default.parseJSON(other.privateJWK)["d"])
        #expect(throws: SHCKeyError.invalidPrivateKey("x/y do not belong to d")) { try SHCIssuerKey(privateJWK: mixed) }
    }

    @Test func privateJWKFileIsOwnerOnly() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("issuer.private.jwk.json")
        let key = SHCIssuerKey.generate()
        try key.writePrivateJWK(to: url)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try SHCIssuerKey(privateJWKBytes: Array(Data(contentsOf: url))).kid == key.kid)
    }

    @Test func thumbprintMatchesRFC7638Example() {
        // RFC 7638's example is RSA; use the spec example key instead, whose kid is its thumbprint.
        #expect(SHCJWK.thumbprint(kty: "EC", crv: "P-256", x: "11XvRWy1I2S0EyJlyf_bWfw_TQ5CJJNLw78bHXNxcgw",
                                  y: "eZXwxvO1hvCY0KucrPfKo7yAyMT6Ajc3N7OkAB6VYy8") == "3Kfdg-XwP-7gXyywtUfUADwBumDOPKMQx-iELL11W9s")
    }

    @Test func issuedCardVerifiesAndRoundTrips() async throws {
        let key = SHCIssuerKey.generate()
        let issuer = try SHCIssuer(key: key, issuer: TestCards.issuer)
        let nbf = Date(timeIntervalSince1970: 1_700_000_000.123)
        let exp = Date(timeIntervalSince1970: 1_900_000_000)
        let jws = try issuer.issue(bundle: TestCards.bundle.serialized(), types: [SHCCredentialType.immunization],
                                   nbf: nbf, exp: exp, rid: "AbC_-1")
        let verifier = SHCVerifier(resolver: StaticKeyResolver([TestCards.issuer: SHCJWKSet(keys: [key.publicJWK])]), now: TestCards.now)
        let report = await verifier.verify(jws)
        #expect(report.isValid, "\(report.errors)")
        #expect(report.warnings.isEmpty, "\(report.warnings)")
        #expect(report.signatureValid)
        #expect(report.header?.parameterNames == ["zip", "alg", "kid"])
        #expect(report.claims == SHCClaims(iss: TestCards.issuer, nbf: 1_700_000_000.123, exp: 1_900_000_000, rid: "AbC_-1",
                                           types: [SHCCredentialType.healthCard, SHCCredentialType.immunization], fhirVersion: "4.0.1"))
        // Claims in the examples' order, exp last; nbf with millisecond precision.
        let payload = try #require(report.payloadJSON)
        let text = String(decoding: payload, as: UTF8.self)
        #expect(text.hasPrefix(#"{"iss":"https://issuer.example.org/shc","nbf":1700000000.123,"vc":{"type":["#))
        #expect(text.hasSuffix(#","rid":"AbC_-1"},"exp":1900000000}"#))
        #expect(report.bundle == TestCards.bundle.setting(["entry", 1, "resource", "meta"], TestCards.bundle["entry"]?.arrayValue?[1]["resource"]?["meta"]))
        let summary = try #require(report.summary)
        #expect(summary.subjectName == "Test Example")
        #expect(summary.birthDate == SHCPartialDate(year: 1970, month: 1, day: 1))
        #expect(summary.itemNames == ["Pfizer-BioNTech COVID-19 vaccine", "SARS-CoV-2 antigen rapid immunoassay (respiratory specimen)"])
        #expect(summary.relevantDate == Date(timeIntervalSince1970: 1_622_541_600))   // 2021-06-01T10:00:00Z
        #expect(summary.expirationDate == exp)
        #expect(summary.recordTypes == [SHCCredentialType.healthCard, SHCCredentialType.immunization, SHCCredentialType.laboratory])
        // The report encodes as JSON for --json output.
        let encoded = try JSONEncoder().encode(report)
        let decoded = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(decoded["isValid"] as? Bool == true)
        #expect(decoded["signatureValid"] as? Bool == true)
    }

    @Test func issuingRefusesRuleBreaks() throws {
        let key = SHCIssuerKey.generate()
        #expect(throws: SHCIssueError.invalidIssuer) { try SHCIssuer(key: key, issuer: "http://issuer.example.org") }
        #expect(throws: SHCIssueError.invalidIssuer) { try SHCIssuer(key: key, issuer: "https://issuer.example.org/") }
        let issuer = try SHCIssuer(key: key, issuer: TestCards.issuer)
        let nbf = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(throws: SHCIssueError.invalidRid) { try issuer.issue(bundle: TestCards.bundle, nbf: nbf, rid: "has.dot") }
        #expect(throws: SHCIssueError.invalidRid) { try issuer.issue(bundle: TestCards.bundle, nbf: nbf, rid: String(repeating: "a", count: 25)) }
        #expect(throws: SHCIssueError.expirationNotAfterIssuance) { try issuer.issue(bundle: TestCards.bundle, nbf: nbf, exp: nbf) }
        #expect(throws: SHCIssueError.notABundle("resourceType is not Bundle")) {
            try issuer.issue(bundle: TestCards.bundle.setting(["resourceType"], .string("Patient")), nbf: nbf)
        }
    }

    @Test func minimizerRemovesWhatRules23To27ForbidAndRewritesReferences() throws {
        let source = JSONValue.json("""
            {"resourceType":"Bundle","id":"b1","meta":{"lastUpdated":"2021-01-01"},"entry":[\
            {"fullUrl":"https://fhir.example.org/Patient/p1","resource":{"resourceType":"Patient","id":"p1","meta":{"versionId":"2"},\
            "text":{"status":"generated","div":"<div/>"},"name":[{"text":"Test Example","family":"Example"}]}},\
            {"fullUrl":"urn:uuid:0f6c","resource":{"resourceType":"Immunization","id":"i1","meta":{"security":[{"code":"IAL1.2"}],"lastUpdated":"x"},\
            "status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"208","display":"Pfizer"}],"text":"Pfizer"},\
            "patient":{"reference":"Patient/p1","display":"kept"},"occurrenceDateTime":"2021-05-01",\
            "reasonCode":[{"text":"text-only concept keeps its \
            text"}],"performer":[{"actor":{"reference":"https://fhir.example.org/Patient/p1/_history/2"}}]}},\
            {"fullUrl":"resource:9","resource":{"resourceType":"Observation","status":"final","code":{"coding":[{"code":"x"}]},\
            "subject":{"reference":"urn:uuid:0f6c"},"hasMember":[{"reference":"resource:9"}]}}]}
            """)
        let minimized = try SHCBundleMinimizer().minimize(source)
        let expected = JSONValue.json("""
            {"resourceType":"Bundle","type":"collection","entry":[\
            {"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"text":"Test Example","family":"Example"}]}},\
            {"fullUrl":"resource:1","resource":{"resourceType":"Immunization","meta":{"security":[{"code":"IAL1.2"}]},\
            "status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"208"}]},\
            "patient":{"reference":"resource:0","display":"kept"},"occurrenceDateTime":"2021-05-01",\
            "reasonCode":[{"text":"text-only concept keeps its text"}],"performer":[{"actor":{"reference":"resource:0"}}]}},\
            {"fullUrl":"resource:2","resource":{"resourceType":"Observation","status":"final","code":{"coding":[{"code":"x"}]},\
            "subject":{"reference":"resource:1"},"hasMember":[{"reference":"resource:2"}]}}]}
            """)
        #expect(minimized == expected, "\(minimized.jsonString())")
        let withoutSecurity = try SHCBundleMinimizer(keepMetaSecurity: false).minimize(source)
        #expect(withoutSecurity["entry"]?.arrayValue?[1]["resource"]?["meta"] == nil)
        // Unresolvable references: fail (default), keep, or remove.
        let broken = source.setting(["entry", 2, "resource", "subject", "reference"], .string("Practitioner/f202"))
        #expect(throws: SHCIssueError.unresolvableReference(path: "entry[2].resource.subject.reference")) {
            try SHCBundleMinimizer().minimize(broken)
        }
        let kept = try SHCBundleMinimizer(unresolvedReferences: .keep).minimize(broken)
        #expect(kept["entry"]?.arrayValue?[2]["resource"]?["subject"]?["reference"] == .string("Practitioner/f202"))
        let removed = try SHCBundleMinimizer(unresolvedReferences: .remove).minimize(broken)
        #expect(removed["entry"]?.arrayValue?[2]["resource"]?["subject"] == nil)
    }

    @Test func revocationMaintenanceInTheWellKnownFolder() async throws {
        let root = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let key = SHCIssuerKey.generate()
        let folder = SHCWellKnownFolder(root: root)
        try folder.publish(keys: [key.publicJWK])
        let secret = Array(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        let rid = SHCRevocation.rid(secret: secret, kid: key.kid, subject: "patient-42")
        #expect(rid.utf8.count == 11)
        let issuer = try SHCIssuer(key: key, issuer: TestCards.issuer)
        let nbf = Date(timeIntervalSince1970: TestCards.nbf)
        let jws = try issuer.issue(bundle: TestCards.bundle, nbf: nbf, rid: rid)
        let resolver = FolderKeyResolver([TestCards.issuer: root])
        let verifier = SHCVerifier(resolver: resolver, now: TestCards.now)
        #expect(await verifier.verify(jws).isValid)

        // First revocation: ctr 1 and crlVersion 1; a cut-off after nbf revokes the card.
        let first = try folder.revoke([rid], kid: key.kid, issuedBefore: nbf.addingTimeInterval(1))
        #expect(first.ctr == 1)
        #expect(first.entries == [.init(rid: rid, timestamp: Int64(TestCards.nbf) + 2)])
        #expect(try folder.readKeySet().keys.first?.crlVersion == 1)
        let revoked = await verifier.verify(jws)
        #expect(revoked.revoked)
        #expect(Set(revoked.errors.map(\.code)) == [.revoked])

        // A second update bumps both to 2; the cached version-1 list is not reused.
        let second = try folder.revoke(["Other1"], kid: key.kid)
        #expect(second.ctr == 2)
        #expect(second.entries.map(\.description) == ["\(rid).\(Int64(TestCards.nbf) + 2)", "Other1"])
        #expect(try folder.readKeySet().keys.first?.crlVersion == 2)
        let again = await verifier.verify(jws)
        #expect(Set(again.errors.map(\.code)) == [.revoked])
        let crlText = String(decoding: try Data(contentsOf: root.appendingPathComponent(".well-known/crl/\(key.kid).json")), as: UTF8.self)
        #expect(crlText.contains(#""ctr": 2"#))
        #expect(throws: SHCFileError.invalidRid) { try folder.revoke(["bad rid"], kid: key.kid) }

        // A rid listed already, or twice in one update, is refused and nothing is written.
        let crlURL = root.appendingPathComponent(".well-known/crl/\(key.kid).json")
        let jwksURL = root.appendingPathComponent(".well-known/jwks.json")
        let before = try Data(contentsOf: crlURL)
        #expect(throws: SHCFileError.ridAlreadyListed("Other1")) { try folder.revoke(["Other1"], kid: key.kid) }
        #expect(throws: SHCFileError.ridAlreadyListed("Twice")) { try folder.revoke(["Twice", "Twice"], kid: key.kid) }
        #expect(try Data(contentsOf: crlURL) == before)

        // A published file that does not read is left as it is: a revocation or a key is never
        // lost to a fresh list or key set written over it.
        try Data("{ not json".utf8).write(to: crlURL)
        #expect(throws: SHCFileError.existingFileUnreadable(path: crlURL.path)) { try folder.revoke(["New1"], kid: key.kid) }
        #expect(try Data(contentsOf: crlURL) == Data("{ not json".utf8))
        try before.write(to: crlURL)
        let jwks = try Data(contentsOf: jwksURL)
        try Data("[]".utf8).write(to: jwksURL)
        #expect(throws: SHCFileError.existingFileUnreadable(path: jwksURL.path)) { try folder.publish(keys: [SHCIssuerKey.generate().publicJWK]) }
        #expect(throws: SHCFileError.existingFileUnreadable(path: jwksURL.path)) { try folder.unpublish(kid: key.kid) }
        #expect(try Data(contentsOf: jwksURL) == Data("[]".utf8))
        try jwks.write(to: jwksURL)

        // Removing a compromised key: every card it signed fails.
        try folder.unpublish(kid: key.kid)
        #expect(Set(await verifier.verify(jws).errors.map(\.code)) == [.keyNotFound])
    }

    @Test func revocationListSerializationIsStrictAndReadingLenient() throws {
        var list = SHCRevocationList(kid: "k1", ctr: 0)
        try list.revoke(["a", "b"])
        #expect(list.ctr == 1)
        #expect(String(decoding: list.json.serialized(), as: UTF8.self) == #"{"kid":"k1","method":"rid","ctr":1,"rids":["a","b"]}"#)
        #expect(throws: SHCIssueError.ridAlreadyListed("b")) { try list.revoke(["c", "b"]) }
        #expect(list.ctr == 1 && list.entries.count == 2)
        let lenient = try SHCRevocationList(jsonBytes: Array(#"{"kid":"k1","method":"rid","ctr":"3","rids":["a.10"]}"#.utf8))
        #expect(lenient.ctr == 3)
        #expect(lenient.ctrWasString)
        #expect(lenient.problems.map(\.code) == [.crlLenient])
        #expect(lenient.revokingEntry(rid: "a", nbf: 9.5) == .init(rid: "a", timestamp: 10))
        #expect(throws: SHCRevocationError.invalidMember("ctr")) { try SHCRevocationList(jsonBytes: Array(#"{"kid":"k","method":"rid","rids":[]}"#.utf8)) }
    }

    @Test func canonicalJSON() throws {
        let value = JSONValue.json(#"{"b":[1.0,-0,1e21,1e-7,0.000001,123.456e2,5e-324],"a":"\u00e9\n","\u20ac":1,"\ud83d\ude00":2,"A":null}"#)
        #expect(String(decoding: value.canonicalized(), as: UTF8.self)
                == #"{"A":null,"a":"é\n","b":[1,0,1e+21,1e-7,0.000001,12345.6,5e-324],"€":1,"😀":2}"#)
        #expect(JSONValue.ecmaScriptNumber("1687450764.656") == "1687450764.656")
        #expect(JSONValue.ecmaScriptNumber("-2.5E3") == "-2500")
        #expect(JSONValue.ecmaScriptNumber("100000000000000000000") == "100000000000000000000")
    }

    @Test func healthCardsIssueRequest() throws {
        let request = try SHCHealthCardsIssue.Request(parameters: .json("""
            {"resourceType":"Parameters","parameter":[{"name":"credentialType","valueUri":"https://smarthealth.cards#immunization"},\
            {"name":"credentialType","valueUri":"Observation"},{"name":"credentialValueSet","valueUri":"https://example.org/vs"},\
            {"name":"includeIdentityClaim","valueString":"Patient.name"},{"name":"_since","valueDateTime":"2021-03"}]}
            """))
        #expect(request.resourceTypes == ["Immunization", "Observation"])
        #expect(request.credentialValueSets == ["https://example.org/vs"])
        #expect(request.includeIdentityClaims == ["Patient.name"])
        #expect(request.since == "2021-03")
        #expect(request.sinceDate == Date(timeIntervalSince1970: 1_614_556_800))   // 2021-03-01T00:00:00Z
        // `_since` must be a FHIR dateTime, given at most once (0..1).
        for since in [#"{"name":"_since","valueDateTime":"March 2021"}"#,
                      #"{"name":"_since","valueDateTime":"2021"},{"name":"_since","valueDateTime":"2022"}"#] {
            #expect(throws: SHCHealthCardsIssue.RequestError.invalidParameter("_since")) {
                try SHCHealthCardsIssue.Request(parameters: .json("""
                    {"resourceType":"Parameters","parameter":[{"name":"credentialType","valueUri":"Immunization"},\(since)]}
                    """))
            }
        }
        #expect(throws: SHCHealthCardsIssue.RequestError.missingCredentialType) {
            try SHCHealthCardsIssue.Request(parameters: .json(#"{"resourceType":"Parameters"}"#))
        }
        #expect(SHCHealthCardsIssue.response(credentials: []).jsonString() == #"{"resourceType":"Parameters"}"#)
        #expect(SHCHealthCardsIssue.smartConfigurationCapability == "health-cards")
    }

    @Test func concurrentVerificationsShareTheRevocationCache() async throws {
        let key = SHCIssuerKey.generate()
        let issuer = try SHCIssuer(key: key, issuer: TestCards.issuer)
        let revokedRid = "Revoked1", keptRid = "Kept1"
        let list = SHCRevocationList(kid: key.kid, ctr: 3, entries: [.init(rid: revokedRid)])
        var published = key
        published.crlVersion = 3
        let verifier = SHCVerifier(resolver: StaticKeyResolver([TestCards.issuer: SHCJWKSet(keys: [published.publicJWK])],
                                                               revocationLists: [TestCards.issuer: [list]]), now: TestCards.now)
        let nbf = Date(timeIntervalSince1970: TestCards.nbf)
        let cards = try (0..<40).map { try issuer.issue(bundle: TestCards.bundle, nbf: nbf, rid: $0.isMultiple(of: 2) ? revokedRid : keptRid) }
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for (index, card) in cards.enumerated() {
                group.addTask { (index, await verifier.verify(card).revoked) }
            }
            var outcomes: [Int: Bool] = [:]
            for await (index, revoked) in group { outcomes[index] = revoked }
            return outcomes
        }
        #expect(outcomes.count == 40)
        for (index, revoked) in outcomes { #expect(revoked == index.isMultiple(of: 2)) }
    }
}

/// Issuing against the spec's own keys and bundles.
@Suite(.enabled(if: Fixtures.available, Fixtures.skipReason))
struct SpecIssuingTests {
    static func specKey() throws -> SHCIssuerKey {
        let keys = try SHCIssuerKey.signingKeys(
            fromPrivateJWKS: Fixtures.bytes(Fixtures.specExamples.appendingPathComponent("issuer-private/issuer.jwks.private.json")))
        #expect(keys.map(\.kid) == [Fixtures.kid0, Fixtures.kid2])
        return keys[0]
    }

    @Test func reissuingExample00ReproducesItsPayloadByteForByte() async throws {
        let issuer = try SHCIssuer(key: try Self.specKey(), issuer: Fixtures.specIssuer)
        let jws = try issuer.issue(bundle: try Fixtures.bytes(Fixtures.example(0, "a-fhirBundle.json")),
                                   nbf: Date(timeIntervalSince1970: 1687450764.656), rid: "MKyCxh7p6uQ")
        let compact = try CompactJWS(Array(jws.utf8))
        #expect(try RawDeflate.inflate(compact.payload, limit: 1 << 20) == (try Fixtures.bytes(Fixtures.example(0, "c-jws-payload-minified.json"))))
        #expect(compact.header == Array(#"{"zip":"DEF","alg":"ES256","kid":"3Kfdg-XwP-7gXyywtUfUADwBumDOPKMQx-iELL11W9s"}"#.utf8))
        let report = await SpecExampleTests.verifier().verify(jws)
        #expect(report.isValid, "\(report.errors)")
        #expect(report.warnings.isEmpty)
    }

    @Test func example03ReissuedWithItsExpiry() throws {
        let issuer = try SHCIssuer(key: try Self.specKey(), issuer: Fixtures.specIssuer)
        let jws = try issuer.issue(bundle: try Fixtures.bytes(Fixtures.example(3, "a-fhirBundle.json")),
                                   nbf: Date(timeIntervalSince1970: 1687450764.657), exp: Date(timeIntervalSince1970: 1718986764.657),
                                   rid: "vwAjHdarZuc")
        let compact = try CompactJWS(Array(jws.utf8))
        #expect(try RawDeflate.inflate(compact.payload, limit: 1 << 20) == (try Fixtures.bytes(Fixtures.example(3, "c-jws-payload-minified.json"))))
    }

    @Test func minimizingTheSourceFixtures() throws {
        // covid-vaccines-bundle minimizes to example 00's bundle when meta.security is dropped too.
        let vaccines = try SHCLimits.default.parseJSON(
            Fixtures.bytes(Fixtures.specExamples.appendingPathComponent("source-fixtures/covid-vaccines-bundle.json")))
        #expect(try SHCBundleMinimizer(keepMetaSecurity: false).minimize(vaccines)
                == (try SHCLimits.default.parseJSON(Fixtures.bytes(Fixtures.example(0, "a-fhirBundle.json")))))
        // dr-bundle has references to resources it does not contain.
        let report = try SHCLimits.default.parseJSON(Fixtures.bytes(Fixtures.specExamples.appendingPathComponent("source-fixtures/dr-bundle.json")))
        #expect(throws: SHCIssueError.self) { try SHCBundleMinimizer().minimize(report) }
        let kept = try SHCBundleMinimizer(unresolvedReferences: .keep).minimize(report)
        // With references kept as they are, the result is example 02's bundle, but for two things the
        // spec's JavaScript generator does: numbers are re-printed (6.0 becomes 6; this minimizer keeps
        // FHIR decimals as written), and the unmatched "Patient/pat2" is wrongly rewritten to
        // resource:0 (the DiagnosticReport); this minimizer leaves unmatched references alone.
        func normalized(_ value: JSONValue) -> JSONValue {
            switch value {
            case .number(let text): return .number(double: Double(text) ?? 0)
            case .string("Patient/pat2"): return .string("resource:0")
            case .array(let elements): return .array(elements.map(normalized))
            case .object(let object): return .object(members: object.members.map { .init($0.key, normalized($0.value)) })
            default: return value
            }
        }
        let example02 = try SHCLimits.default.parseJSON(Fixtures.bytes(Fixtures.example(2, "a-fhirBundle.json")))
        #expect(normalized(kept) == normalized(example02))
        #expect(kept != example02)
        #expect(kept["entry"]?.arrayValue?.count == 55)
    }

    @Test func kidOfTheSpecKeyUnderAnotherIssuerFails() async throws {
        // Signed by the spec key but claiming another iss (like dev-tools' test-example-00-d-jws-issuer-not-valid-with-smart-key).
        let issuer = try SHCIssuer(key: try Self.specKey(), issuer: "https://foo.smarthealth.cards")
        let jws = try issuer.issue(bundle: try Fixtures.bytes(Fixtures.example(0, "a-fhirBundle.json")), nbf: Date(timeIntervalSince1970: 1687450764.656))
        let report = await SpecExampleTests.verifier().verify(jws)
        #expect(!report.signatureValid)
        #expect(Set(report.errors.map(\.code)) == [.issuerUnknown])
        // Even when the other issuer has a JWKS, the spec key is not in it.
        let other = SHCIssuerKey.generate()
        let resolver = CompositeKeyResolver([
            StaticKeyResolver(["https://foo.smarthealth.cards": SHCJWKSet(keys: [other.publicJWK])]),
            FolderKeyResolver([Fixtures.specIssuer: Fixtures.specExamples.appendingPathComponent("issuer")]),
        ])
        let second = await SHCVerifier(resolver: resolver, now: SpecExampleTests.today).verify(jws)
        #expect(Set(second.errors.map(\.code)) == [.keyNotFound])
    }

    @Test func legacyHashFHIRRidOfExample03() throws {
        // Rule 44's verified vector.
        let bundle = try SHCLimits.default.parseJSON(Fixtures.bytes(Fixtures.example(3, "a-fhirBundle.json")))
        #expect(SHCRevocation.hashFHIRRid(bundle: bundle) == "JuTJHwXo2Yc")
    }

    @Test func x5cLeafOfTheSpecKey() async throws {
        let keySet = try SHCJWKSet(jsonBytes: Fixtures.bytes(Fixtures.specExamples.appendingPathComponent("issuer/.well-known/jwks.json")))
        let key = try #require(keySet.keys.first { $0.kid == Fixtures.kid2 })
        let leaf = try #require(key.x5cLeaf)
        #expect(leaf.uriSubjectAlternativeNames == [Fixtures.specIssuer])
        #expect(leaf.notAfter == Date(timeIntervalSince1970: 1_654_098_609))   // 2022-06-01T15:50:09Z
        #expect(key.problems.isEmpty)
        // A card from another issuer URL signed by this key: the leaf's URI SAN does not name it.
        let keys = try SHCIssuerKey.signingKeys(
            fromPrivateJWKS: Fixtures.bytes(Fixtures.specExamples.appendingPathComponent("issuer-private/issuer.jwks.private.json")))
        let otherIssuer = "https://other.example.org/issuer"
        let jws = try SHCIssuer(key: keys[1], issuer: otherIssuer).issue(
            bundle: try Fixtures.bytes(Fixtures.example(1, "a-fhirBundle.json")), nbf: Date(timeIntervalSince1970: 1_700_000_000))
        let report = await SHCVerifier(resolver: StaticKeyResolver([otherIssuer: keySet]), now: SpecExampleTests.today).verify(jws)
        #expect(report.isValid, "\(report.errors)")
        #expect(Set(report.warnings.map(\.code)) == [.x5cValidity, .x5cSAN])
        // The same certificate on another key is a mismatch (rule 9).
        let stranger = SHCIssuerKey.generate().publicJWK.json.setting(["x5c"], key.json["x5c"])
        #expect(try SHCJWK(json: stranger).problems.map(\.code) == [.x5cKeyMismatch])
    }
}
