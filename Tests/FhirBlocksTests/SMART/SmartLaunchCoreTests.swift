import CommonSupport
import ExactJSON
@testable import FhirBlocks
import Testing
import TestSupport

/// The SMART App Launch pieces of the core: PKCE against RFC 7636's vector and as a property,
/// user codes, the RFC 7591 registration parser and the signed decision, fuzzed.
@Suite struct SmartLaunchCoreTests {
    @Test func pkceMatchesRFC7636AppendixB() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.verify(verifier: verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        #expect(!PKCE.verify(verifier: verifier + "x", challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        // Too short, too long, outside the alphabet: never verified, whatever the challenge.
        for bad in [String(repeating: "a", count: 42), String(repeating: "a", count: 129), String(repeating: "a", count: 42) + "+", ""] {
            #expect(!PKCE.verify(verifier: bad, challenge: PKCE.challenge(for: bad)))
        }
    }

    @Test func pkceVerifiesExactlyItsOwnVerifier() {
        var generator = SplitMix64(seed: 7636)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        for _ in 0..<300 {
            let verifier = String((0..<Int.random(in: 43...128, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
            let challenge = PKCE.challenge(for: verifier)
            #expect(challenge.utf8.count == 43 && PKCE.isWellFormed(challenge))
            #expect(PKCE.verify(verifier: verifier, challenge: challenge))
            var other = Array(verifier)
            let index = Int.random(in: 0..<other.count, using: &generator)
            other[index] = other[index] == "a" ? "b" : "a"
            #expect(!PKCE.verify(verifier: String(other), challenge: challenge))
        }
    }

    @Test func userCodesRoundTripThroughWhatPeopleType() {
        var generator = SplitMix64(seed: 15)
        for _ in 0..<200 {
            let code = UserCode.random(using: &generator)
            #expect(code.count == 8 && code.allSatisfy(UserCode.alphabet.contains))
            let shown = UserCode.display(code)
            #expect(shown.count == 9 && shown.contains("-"))
            #expect(UserCode.normalize(shown) == code)
            #expect(UserCode.normalize(" " + shown.lowercased() + " ") == code)
        }
        for typed in ["", "BCDF-GHJ", "BCDF-GHJKL", "BCDF-GHJA", "BCDF|GHJK", "ＢCDF-GHJK"] {
            #expect(UserCode.normalize(typed) == nil, "\(typed)")
        }
    }

    @Test func registrationAcceptsPublicClientsWithSafeRedirects() throws {
        let parsed = try ClientRegistrationRequest(jsonBytes: Array(#"""
            {"redirect_uris":["https://a.example/cb?x=1","http://localhost:8080/cb","http://127.0.0.1/cb","http://[::1]:9/cb","https://a.example/cb?x=1"],\#
            "token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"],"response_types":["code"],"client_name":"App"}
            """#.utf8))
        #expect(parsed.redirectURIs == ["https://a.example/cb?x=1", "http://localhost:8080/cb", "http://127.0.0.1/cb", "http://[::1]:9/cb"])
        #expect(parsed.clientName == "App" && parsed.publicKey == nil)
        let key = CsiSigningKey.generate().publicKey
        let jwks = JSONWriter.string(.object(JSONObject(members: [JSONMember(key: "keys", value: .array([key.jwk(kid: "k1")]))])))
        let confidential = try ClientRegistrationRequest(jsonBytes: Array(#"""
            {"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks":\#(jwks)}
            """#.utf8))
        #expect(confidential.publicKey == key)
        for uri in ["http://a.example/cb", "http://localhost.evil.example/cb", "http://127.0.0.1@evil.example/cb", "http://127.evil.example/cb",
                    "http://127.0.0.1.evil.example/cb", "https:///cb", "ftp://a.example",
                    "https://a.example/cb#x", "https://a.example/c b", "javascript:alert(1)", "https://a.example/" + String(repeating: "a", count: 2_000)] {
            #expect(throws: ClientRegistrationError.self, "\(uri)") { try ClientRegistrationRequest.checkRedirectURI(uri) }
        }
    }

    @Test func mutatedRegistrationsAndDecisionsNeverCrash() throws {
        var generator = SplitMix64(seed: 7591)
        let seeds = [
            Array(#"{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"none","client_name":"A"}"#.utf8),
            Array(#"""
                {"cipher":"ecdsa","csiGuid":"00000000-0000-4000-8000-000000000001","dateTime":"2027-01-01T00:00:00.000Z","decision":"approve",\#
                "endTime":"2027-02-01T00:00:00.000Z","nonce":"abcdefghijklmnop","scope":"patient/*.rs","signature":"AAAA","userCode":"BCDF-GHJK"}
                """#.utf8),
        ]
        for _ in 0..<2_000 {
            var bytes = seeds[Int.random(in: 0..<seeds.count, using: &generator)]
            for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? ClientRegistrationRequest(jsonBytes: bytes)
            if let decision = try? DecideAuthorizationRequest(jsonBytes: bytes) {
                #expect(decision.typedDecision != nil && !decision.scope.contains("|"))
            }
        }
    }

    @Test func theDecisionSignatureCoversEveryField() throws {
        let key = CsiSigningKey.generate()
        let csi = "00000000-0000-4000-8000-000000000001"
        var request = DecideAuthorizationRequest(envelope: SMOACEnvelope(csiGuid: csi, dateTime: "2027-01-01T00:00:00.000Z", nonce: "abcdefghijklmnop",
                                                                         signature: ""),
                                                 userCode: "BCDF-GHJK", decision: .approve, scope: "patient/Observation.rs",
                                                 endTime: "2027-02-01T00:00:00.000Z")
        try RequestSigner.sign(&request, with: key)
        let parsed = try DecideAuthorizationRequest(jsonBytes: request.jsonBytes)
        #expect(parsed == request)
        #expect(try SignedRequestVerifier.verify(parsed, publicKey: key.publicKey, mode: .strict).isEmpty)
        var tampered: [DecideAuthorizationRequest] = []
        for change in 0..<4 {
            var copy = parsed
            switch change {
            case 0: copy.userCode = "BCDF-GHJL"
            case 1: copy.decision = "decline"
            case 2: copy.scope = "patient/*.rs"
            default: copy.endTime = "2099-01-01T00:00:00.000Z"
            }
            tampered.append(copy)
        }
        for copy in tampered {
            #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(copy, publicKey: key.publicKey, mode: .compat) }
        }
    }
}
