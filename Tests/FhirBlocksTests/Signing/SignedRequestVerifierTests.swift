import CommonSupport
import ExactJSON
import Testing
@testable import FhirBlocks

/// Strict and legacy payloads of every signed endpoint, sign → verify → tamper.
@Suite struct SignedRequestVerifierTests {
    static let key = CsiSigningKey.generate()
    static var envelope: SMOACEnvelope { SMOACEnvelope(csiGuid: AppendixA.granter, dateTime: AppendixA.dateTime, nonce: AppendixA.nonce, signature: "") }

    static func allRequests() -> [any SignedRequest] {
        var registration = AppendixA.registrationRequest(signature: "")
        registration.publicKey = key.publicKey.spkiBase64
        return [
            registration,
            FetchPublicClaimsRequest(envelope: envelope, desiredCsiGuid: AppendixA.grantee),
            AppendixA.writePermissionRequest(),
            FetchPermissionsGrantedByMeRequest(envelope: envelope),
            FetchPermissionsGivenToMeRequest(envelope: envelope),
            DeletePermissionRequest(envelope: envelope, permissionedGuidBeingDeleted: AppendixA.grantee),
        ]
    }

    static func check<R: SignedRequest>(_ request: R) throws {
        // Strict signature: accepted in both modes, no quirks.
        var strict = request
        try RequestSigner.sign(&strict, with: key, style: .strict)
        #expect(try SignedRequestVerifier.verify(strict, publicKey: key.publicKey, mode: .strict).isEmpty)
        #expect(try SignedRequestVerifier.verify(strict, publicKey: key.publicKey, mode: .compat).isEmpty)
        // Legacy signature: compat only, reported.
        var legacy = request
        try RequestSigner.sign(&legacy, with: key, style: .legacy)
        #expect(try SignedRequestVerifier.verify(legacy, publicKey: key.publicKey, mode: .compat).contains(.legacySignedPayload))
        #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(legacy, publicKey: key.publicKey, mode: .strict) }
        // Through JSON bytes, the same.
        let reparsed = try R(jsonBytes: strict.jsonBytes)
        #expect(try SignedRequestVerifier.verify(reparsed, publicKey: key.publicKey, mode: .strict).isEmpty)
        // Wrong key.
        #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(strict, publicKey: AppendixA.publicKey, mode: .compat) }
        // Changed nonce, dateTime or csiGuid in the strict payload.
        for change in [{ (r: inout R) in r.envelope.nonce = "ZZZZZZZZ-e5F6-g7H8-i9J0-k1L2m3N4o5P6" },
                       { (r: inout R) in r.envelope.dateTime = "2018-01-12T17:03:22.000Z" },
                       { (r: inout R) in r.envelope.csiGuid = "00000000-0000-4000-8000-000000000001" }] {
            var changed = strict
            change(&changed)
            #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(changed, publicKey: key.publicKey, mode: .compat) }
        }
        // Not base64, not DER.
        var garbage = strict
        garbage.envelope.signature = "!!!!"
        #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(garbage, publicKey: key.publicKey, mode: .compat) }
        garbage.envelope.signature = Base64URL.encodeStandard([UInt8](repeating: 7, count: 64))
        #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(garbage, publicKey: key.publicKey, mode: .compat) }
    }

    @Test func everyEndpointSignsAndVerifies() throws {
        for request in Self.allRequests() {
            try Self.check(request)
        }
    }

    @Test func strictPayloadsBindTheEndpoint() throws {
        // The same envelope signed for givenToMe does not verify as grantedByMe.
        var givenToMe = FetchPermissionsGivenToMeRequest(envelope: Self.envelope)
        try RequestSigner.sign(&givenToMe, with: Self.key, style: .strict)
        let grantedByMe = FetchPermissionsGrantedByMeRequest(envelope: givenToMe.envelope)
        #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(grantedByMe, publicKey: Self.key.publicKey, mode: .compat) }
        #expect(RequestSigner.payload(for: givenToMe, style: .strict)?.text
                == "|permission/fetchPermissionsGivenToMe|\(AppendixA.granter)|\(AppendixA.dateTime)|\(AppendixA.nonce)|")
    }

    @Test func olderFetchPublicClaimsPayloadIsAcceptedInCompat() throws {
        var request = FetchPublicClaimsRequest(envelope: Self.envelope, desiredCsiGuid: AppendixA.grantee)
        let older = SignedPayload(fields: ["ecdsa", AppendixA.granter, AppendixA.dateTime, AppendixA.grantee, AppendixA.nonce])
        request.envelope.signature = Base64URL.encodeStandard(try Self.key.signature(for: older.bytes, format: .der))
        #expect(try SignedRequestVerifier.verify(request, publicKey: Self.key.publicKey, mode: .compat)
                == [.legacySignedPayload, .olderFetchPublicClaimsPayload])
    }

    @Test func strictWritePermissionNeedsArrayAndAccessType() throws {
        var single = AppendixA.writePermissionRequest()
        single.permission.permissionedCsiGuids = nil
        single.permission.permissionedCsiGuid = AppendixA.grantee
        try RequestSigner.sign(&single, with: Self.key, style: .legacy)
        #expect(try SignedRequestVerifier.verify(single, publicKey: Self.key.publicKey, mode: .compat).contains(.singleGranteeField))
        #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(single, publicKey: Self.key.publicKey, mode: .strict) }

        var noAccess = AppendixA.writePermissionRequest(accessType: nil)
        #expect(RequestSigner.payload(for: noAccess, style: .strict) == nil)
        try RequestSigner.sign(&noAccess, with: Self.key, style: .legacy)
        #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(noAccess, publicKey: Self.key.publicKey, mode: .strict) }
        #expect(try SignedRequestVerifier.verify(noAccess, publicKey: Self.key.publicKey, mode: .compat).contains(.unsignedAccessType))
    }

    @Test func strictWritePermissionSignsAccessType() throws {
        var request = AppendixA.writePermissionRequest(accessType: "read")
        try RequestSigner.sign(&request, with: Self.key, style: .strict)
        #expect(try SignedRequestVerifier.verify(request, publicKey: Self.key.publicKey, mode: .strict).isEmpty)
        request.permission.heartScope.accessType = "write"
        #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(request, publicKey: Self.key.publicKey, mode: .strict) }
    }

    @Test func claimsTextFormats() {
        let claims = [PublicClaim(key: "FirstName", value: "A\"b"), PublicClaim(key: "Gender", value: "")]
        #expect(SignedPayload.legacyClaimsText(claims) == #"[{"key": "FirstName", "value": "A"b"},{"key": "Gender", "value": ""}]"#)
        #expect(SignedPayload.compactClaimsJSON(claims) == #"[{"key":"FirstName","value":"A\"b"},{"key":"Gender","value":""}]"#)
        #expect(SignedPayload.join([]) == "||")
    }
}
