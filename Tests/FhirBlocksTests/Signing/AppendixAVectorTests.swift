import ExactJSON
import Testing
@testable import FhirBlocks

/// Every wire-format vector of the doc's Appendix A.
@Suite struct AppendixAVectorTests {
    @Test func testKeyMatchesThePublishedSPKI() throws {
        let key = try CsiSigningKey(rawScalar: #require(Hex.decode(AppendixA.privateScalarHex)))
        #expect(key.publicKey.spkiBase64 == AppendixA.publicKeyBase64)
        #expect(AppendixA.publicKeyBase64.utf8.count == 124)
        #expect(key.publicKey.spkiDER.count == 91)
        #expect(try CsiPublicKey.parseWire(AppendixA.publicKeyBase64, mode: .strict).value == key.publicKey)
    }

    @Test func registrationPayloadIsRebuiltExactly() throws {
        let request = AppendixA.registrationRequest()
        let legacy = try #require(RequestSigner.payload(for: request, style: .legacy))
        #expect(legacy.text == AppendixA.registrationPayload)
        #expect(legacy.quirks == [.legacySignedPayload, .handBuiltClaimsText])
        // Through JSON and back, the payload is the same.
        let reparsed = try CsiRegistrationRequest(jsonBytes: request.jsonBytes)
        #expect(RequestSigner.payload(for: reparsed, style: .legacy)?.text == AppendixA.registrationPayload)
    }

    @Test func registrationSignatureVerifiesInCompatOnly() throws {
        let request = AppendixA.registrationRequest()
        let accepted = try SignedRequestVerifier.verifyRegistration(request, mode: .compat)
        #expect(accepted.value.spkiBase64 == AppendixA.publicKeyBase64)
        #expect(accepted.quirks == [.legacySignedPayload, .handBuiltClaimsText])
        #expect(throws: SMOACError.self) { try SignedRequestVerifier.verifyRegistration(request, mode: .strict) }
    }

    @Test func registrationWithAChangedFieldFails() {
        var changes: [(String, (inout CsiRegistrationRequest) -> Void)] = []
        changes.append(("deviceId", { $0.deviceId = "65073A24-A6B4-4FF6-93CA-5C8DCC857863" }))
        changes.append(("dateTime", { $0.envelope.dateTime = "2018-01-12T17:03:22.000Z" }))
        changes.append(("nonce", { $0.envelope.nonce = "a1B2c3D4-e5F6-g7H8-i9J0-k1L2m3N4o5P7" }))
        changes.append(("claim", { $0.publicClaims[1].value = "Ann" }))
        changes.append(("claim order", { $0.publicClaims.swapAt(0, 1) }))
        for (name, change) in changes {
            var request = AppendixA.registrationRequest()
            change(&request)
            #expect(throws: SMOACError.badSignature("csi/requestCsiRegistration: signature does not verify"), "\(name)") {
                try SignedRequestVerifier.verifyRegistration(request, mode: .compat)
            }
        }
        // Unsigned members may change (csiGuid and applicationClass are not in the legacy payload).
        var unsigned = AppendixA.registrationRequest()
        unsigned.applicationClass = "other"
        #expect(throws: Never.self) { try SignedRequestVerifier.verifyRegistration(unsigned, mode: .compat) }
    }

    @Test func writePermissionPayloadIsRebuiltExactlyAndVerifies() throws {
        var request = AppendixA.writePermissionRequest()
        #expect(RequestSigner.payload(for: request, style: .legacy)?.text == AppendixA.writePermissionPayload)
        try RequestSigner.sign(&request, with: AppendixA.signingKey, style: .legacy)
        let reparsed = try WritePermissionRequest(jsonBytes: request.jsonBytes)
        let quirks = try SignedRequestVerifier.verify(reparsed, publicKey: AppendixA.publicKey, mode: .compat)
        #expect(quirks == [.legacySignedPayload, .unsignedAccessType])
        #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(reparsed, publicKey: AppendixA.publicKey, mode: .strict) }

        // accessType is outside the legacy signature: changing it still verifies (reported as unsigned).
        var access = reparsed
        access.permission.heartScope.accessType = "read"
        #expect(try SignedRequestVerifier.verify(access, publicKey: AppendixA.publicKey, mode: .compat).contains(.unsignedAccessType))

        let changes: [(inout WritePermissionRequest) -> Void] = [
            { $0.permission.endTime = "2018-03-28T00:00:00.000Z" },
            { $0.permission.permissionedCsiGuids = ["2cf13cf4-3780-4f2a-9310-23abd3d1596b"] },
            { $0.permission.heartScope.sensitivityScope = ["ETH"] },
            { $0.permission.heartScope.confidentialityScope = "R" },
            { $0.permission.heartScope.resourceScope = "Observation" },
            { $0.envelope.csiGuid = "b8565047-08d8-4293-b81e-ec2e9d37db8f" },
        ]
        for index in changes.indices {
            var changed = reparsed
            changes[index](&changed)
            #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(changed, publicKey: AppendixA.publicKey, mode: .compat) }
        }
    }

    @Test func legacyAssertionVerifiesInCompat() throws {
        let assertion = try CompactAssertion(AppendixA.legacyAssertion, mode: .compat)
        #expect(assertion.quirks == [.legacyJWTEncoding, .stringTimeClaims])
        #expect(assertion.claims.iss == AppendixA.granter)
        #expect(assertion.claims.aud == [AppendixA.legacyAudience])
        #expect(assertion.claims.iat == 1_515_776_601 && assertion.claims.exp == 1_515_776_901)
        #expect(assertion.claims.jti == AppendixA.deviceId && assertion.claims.sta == AppendixA.deviceId)
        #expect(assertion.claims.scope == "patient/Patient.read sens/ETH sens/SOC conf/V")
        #expect(try assertion.verifySignature(with: AppendixA.publicKey, mode: .compat) == [.legacyJWTSignature])
        #expect(throws: AssertionError.badSignature) { try assertion.verifySignature(with: AppendixA.publicKey, mode: .strict) }
        #expect(throws: AssertionError.self) { try CompactAssertion(AppendixA.legacyAssertion, mode: .strict) }
    }

    @Test func standardJWSVerifiesInStrict() throws {
        let assertion = try CompactAssertion(AppendixA.standardJWS, mode: .strict)
        #expect(assertion.quirks.isEmpty)
        #expect(assertion.header.kid == AppendixA.granter)
        #expect(assertion.claims.aud == [AppendixA.standardAudience])
        #expect(try assertion.verifySignature(with: AppendixA.publicKey, mode: .strict).isEmpty)
        #expect(try assertion.verifySignature(with: AppendixA.publicKey, mode: .compat).isEmpty)
    }

    @Test func changedAssertionsFail() throws {
        for text in [AppendixA.standardJWS, AppendixA.legacyAssertion] {
            let parts = text.split(separator: ".").map(String.init)
            // Flip one character of the payload (keeping it decodable) or of the signature.
            for part in 1...2 {
                var mutated = parts
                var characters = Array(mutated[part])
                let position = characters.count / 2
                characters[position] = characters[position] == "A" ? "B" : "A"
                mutated[part] = String(characters)
                let changed = mutated.joined(separator: ".")
                if let assertion = try? CompactAssertion(changed, mode: .compat) {
                    #expect(throws: AssertionError.self) { try assertion.verifySignature(with: AppendixA.publicKey, mode: .compat) }
                }
            }
        }
        // Another key never verifies.
        let other = CsiSigningKey.generate().publicKey
        #expect(throws: AssertionError.badSignature) {
            try CompactAssertion(AppendixA.standardJWS, mode: .strict).verifySignature(with: other, mode: .compat)
        }
    }
}
