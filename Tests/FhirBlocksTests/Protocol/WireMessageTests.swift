import ExactJSON
import Testing
@testable import FhirBlocks
import TestSupport

@Suite struct WireMessageTests {
    @Test func registrationBodyUsesTheCatalogueNames() throws {
        let request = AppendixA.registrationRequest()
        let object = try #require(request.json.objectValue)
        #expect(object.keys == ["applicationClass", "cipherSpec", "csiGuid", "dateTime", "deviceId", "nonce", "publicClaims", "publicKey", "signature"])
        #expect(try CsiRegistrationRequest(jsonBytes: request.jsonBytes) == request)
    }

    @Test func everyRequestRoundTrips() throws {
        let envelope = SMOACEnvelope(csiGuid: AppendixA.granter, dateTime: AppendixA.dateTime, nonce: AppendixA.nonce, signature: "c2ln")
        let claims = FetchPublicClaimsRequest(envelope: envelope, desiredCsiGuid: AppendixA.grantee)
        #expect(try FetchPublicClaimsRequest(jsonBytes: claims.jsonBytes) == claims)
        #expect(claims.json.objectValue?.keys == ["cipher", "csiGuid", "dateTime", "desiredCsiGuid", "nonce", "signature"])
        var write = AppendixA.writePermissionRequest()
        write.envelope.signature = "c2ln"
        #expect(try WritePermissionRequest(jsonBytes: write.jsonBytes) == write)
        let byMe = FetchPermissionsGrantedByMeRequest(envelope: envelope)
        #expect(try FetchPermissionsGrantedByMeRequest(jsonBytes: byMe.jsonBytes) == byMe)
        let toMe = FetchPermissionsGivenToMeRequest(envelope: envelope)
        #expect(try FetchPermissionsGivenToMeRequest(jsonBytes: toMe.jsonBytes) == toMe)
        let delete = DeletePermissionRequest(envelope: envelope, permissionedGuidBeingDeleted: AppendixA.grantee)
        #expect(try DeletePermissionRequest(jsonBytes: delete.jsonBytes) == delete)
    }

    @Test func everyResponseRoundTrips() throws {
        let ping = PingResponse(version: "1.0.0")
        #expect(try PingResponse(jsonBytes: ping.jsonBytes) == ping)
        let time = TimeResponse(currentTime: AppendixA.now)
        #expect(time.jsonText == #"{"currentTime":"2018-01-12T17:03:21.000Z"}"#)
        #expect(try TimeResponse(jsonBytes: time.jsonBytes) == time)
        let guid = GuidResponse(guid: csi(AppendixA.granter))
        #expect(try GuidResponse(jsonBytes: guid.jsonBytes) == guid)
        let claims = PublicClaimsResponse(claims: PublicClaim.legacyEmptyClaims)
        #expect(try PublicClaimsResponse(jsonBytes: claims.jsonBytes) == claims)
        let record = PermissionRecord(permissionId: "p1", grantingCsiGuid: AppendixA.granter, permissionedCsiGuids: [AppendixA.grantee],
                                      startTime: AppendixA.dateTime, endTime: AppendixA.dateTime,
                                      heartScope: AppendixA.writePermissionRequest().permission.heartScope, status: "active")
        let list = PermissionsResponse(permissions: [record])
        #expect(try PermissionsResponse(jsonBytes: list.jsonBytes) == list)
        #expect(try WritePermissionResponse(jsonBytes: WritePermissionResponse(permissionIds: ["a"]).jsonBytes).permissionIds == ["a"])
        #expect(try DeletePermissionResponse(jsonBytes: DeletePermissionResponse(revokedPermissionIds: ["a"]).jsonBytes).revokedPermissionIds == ["a"])
        let code = VacaAuthResponse(code: "c", scope: "patient/Patient.read", expiresIn: 60)
        #expect(try VacaAuthResponse(jsonBytes: code.jsonBytes) == code)
        let token = TokenResponse(accessToken: "t", expiresIn: 300, scope: "s", patient: "p")
        #expect(token.jsonText == #"{"access_token":"t","token_type":"bearer","expires_in":300,"scope":"s","patient":"p"}"#)
        #expect(try TokenResponse(jsonBytes: token.jsonBytes) == token)
        #expect(IntrospectionResponse.inactive.jsonText == #"{"active":false}"#)
        let error = SMOACError.replayedNonce.body
        #expect(error.jsonText == #"{"error":"replayed_nonce","error_description":"the nonce was already used"}"#)
        #expect(try ErrorBody(jsonBytes: error.jsonBytes) == error)
    }

    @Test func errorStatusCodesFollowTheDoc() {
        #expect(SMOACError.malformedRequest("x").httpStatus == 400)
        #expect(SMOACError.badSignature("x").httpStatus == 401)
        #expect(SMOACError.unknownCsi.httpStatus == 401)
        #expect(SMOACError.staleDateTime(skewSeconds: 400).httpStatus == 401)
        #expect(SMOACError.replayedNonce.httpStatus == 401)
        #expect(SMOACError.notPermitted("x").httpStatus == 403)
        #expect(SMOACError.unknownTarget("x").httpStatus == 404)
        #expect(SMOACError.alreadyRegistered.httpStatus == 409)
        #expect(SMOACError.invalidClient("x").httpStatus == 401)
        #expect(SMOACError.invalidGrant("x").errorCode == "invalid_grant")
    }

    @Test func malformedBodiesAreTypedErrors() {
        let bad: [String] = [
            "", "[]", "{", #"{"cipher":"ecdsa"}"#,
            #"""
                {"cipher":"rsa","csiGuid":"b8565047-08d8-4293-b81e-ec2e9d37db8e","dateTime":"2018-01-12T17:03:21.000Z",\#
                "nonce":"a1B2c3D4-e5F6-g7H8-i9J0-k1L2m3N4o5P6","signature":"x"}
                """#,
            #"{"cipher":"ecdsa","csiGuid":"not-a-guid","dateTime":"2018-01-12T17:03:21.000Z","nonce":"a1B2c3D4-e5F6-g7H8-i9J0-k1L2m3N4o5P6","signature":"x"}"#,
            #"""
                {"cipher":"ecdsa","csiGuid":"b8565047-08d8-4293-b81e-ec2e9d37db8e","dateTime":"2018-01-12 17:03:21",\#
                "nonce":"a1B2c3D4-e5F6-g7H8-i9J0-k1L2m3N4o5P6","signature":"x"}
                """#,
            #"{"cipher":"ecdsa","csiGuid":"b8565047-08d8-4293-b81e-ec2e9d37db8e","dateTime":"2018-01-12T17:03:21.000Z","nonce":"short","signature":"x"}"#,
            #"""
                {"cipher":"ecdsa","csiGuid":"b8565047-08d8-4293-b81e-ec2e9d37db8e","dateTime":"2018-01-12T17:03:21.000Z",\#
                "nonce":"a1B2c3D4-e5F6-g7H8-i9J0-k1L2m3N4o5P6","signature":1}
                """#,
            #"{"cipher":"ecdsa","cipher":"ecdsa"}"#,
        ]
        for text in bad {
            #expect(throws: SMOACError.self) { try FetchPermissionsGivenToMeRequest(jsonBytes: Array(text.utf8)) }
        }
        // Both grantee forms at once, a grantee that is not a UUID, a pipe in a signed member.
        var write = AppendixA.writePermissionRequest()
        var object = write.json.objectValue ?? JSONObject()
        var permission = object["permission"]?.objectValue ?? JSONObject()
        permission["permissionedCsiGuid"] = .string(AppendixA.grantee)
        object["permission"] = .object(permission)
        #expect(throws: SMOACError.self) { try WritePermissionRequest(json: .object(object)) }
        write.permission.permissionedCsiGuids = ["nope"]
        #expect(throws: SMOACError.self) { try WritePermissionRequest(jsonBytes: write.jsonBytes) }
        write = AppendixA.writePermissionRequest()
        write.permission.heartScope.resourceScope = "Patient|x"
        #expect(throws: SMOACError.self) { try WritePermissionRequest(jsonBytes: write.jsonBytes) }
        var registration = AppendixA.registrationRequest()
        registration.deviceId = "a|b"
        #expect(throws: SMOACError.self) { try CsiRegistrationRequest(jsonBytes: registration.jsonBytes) }
    }

    @Test func endpointsResolveWithTheAliasInCompatOnly() {
        #expect(SMOACEndpoint.allCases.count == 12)
        #expect(SMOACEndpoint.resolve(path: "/csi/requestCsiRegistration", mode: .strict)?.value == .requestCsiRegistration)
        #expect(SMOACEndpoint.resolve(path: "permission/fetchPermissionsGivenByMe", mode: .strict) == nil)
        let alias = SMOACEndpoint.resolve(path: "permission/fetchPermissionsGivenByMe", mode: .compat)
        #expect(alias?.value == .fetchPermissionsPreviouslyGrantedByMe && alias?.quirks == [.givenByMeAlias])
        #expect(SMOACEndpoint.ping.accepts(method: "POST", mode: .strict).value == false)
        #expect(SMOACEndpoint.ping.accepts(method: "POST", mode: .compat) == Accepted(true, quirks: [.postOnGetEndpoint]))
        #expect(SMOACEndpoint.writePermission.accepts(method: "post", mode: .strict).value)
    }

    @Test func identifiersAndTimestamps() {
        #expect(CsiGuid("7C5B8363-504B-4F83-9D01-CAA4E28A156E")?.rawValue == "7c5b8363-504b-4f83-9d01-caa4e28a156e")
        #expect(CsiGuid("7c5b8363-504b-4f83-9d01-caa4e28a156") == nil)
        #expect(CsiGuid("7c5b8363x504b-4f83-9d01-caa4e28a156e") == nil)
        #expect(CsiGuid("g7c5b836-504b-4f83-9d01-caa4e28a156e") == nil)
        var random = SplitMix64(seed: 3)
        for _ in 0..<50 {
            let guid = CsiGuid.random(using: &random)
            #expect(CsiGuid(guid.rawValue) == guid)
            #expect(ProtocolNonce.isValid(ProtocolNonce.random(using: &random)))
        }
        #expect(ProtocolNonce.isValid(AppendixA.nonce))
        #expect(!ProtocolNonce.isValid("a1B2c3D4-e5F6-g7H8-i9J0-k1L2m3N4o5P6!"))
        #expect(!ProtocolNonce.isValid(String(repeating: "a", count: 65)))
        #expect(Timestamp(wireText: "2018-01-12T17:03:21.000Z") == AppendixA.now)
        #expect(Timestamp(wireText: "2018-02-29T00:00:00.000Z") == nil)
        #expect(Timestamp(wireText: "2020-02-29T23:59:59.999Z")?.wireText == "2020-02-29T23:59:59.999Z")
        #expect(Timestamp(wireText: "2018-01-12T24:00:00.000Z") == nil)
        #expect(Timestamp(wireText: "2018-01-12T17:03:21Z") == nil)
        // Written digit by digit: zero padding, clamping at both ends, times before 1970.
        #expect(Timestamp(millisecondsSince1970: Int64.min).wireText == "0001-01-01T00:00:00.000Z")
        #expect(Timestamp(millisecondsSince1970: Int64.max).wireText == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp(millisecondsSince1970: -1).wireText == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp(wireText: "0987-06-05T04:03:02.001Z")?.wireText == "0987-06-05T04:03:02.001Z")
        for _ in 0..<500 {
            let millis = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &random)
            let stamp = Timestamp(millisecondsSince1970: millis)
            #expect(Timestamp(wireText: stamp.wireText) == stamp)
        }
    }

    @Test func formBodiesAndTheUnencodedPlusQuirk() throws {
        let raw = Array("grant_type=authorization_code&assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer&assertion=ab+c/d==".utf8)
        let compat = try VacaAuthRequest.parse(raw, mode: .compat)
        #expect(compat.value.assertion == "ab+c/d==" && compat.quirks == [.unencodedFormBody])
        let strict = try VacaAuthRequest.parse(raw, mode: .strict)
        #expect(strict.value.assertion == "ab c/d==" && strict.quirks.isEmpty)
        let encoded = VacaAuthRequest(assertion: "ab+c/d==", scope: "patient/Patient.read conf/V").form.encoded()
        let parsed = try VacaAuthRequest.parse(encoded, mode: .strict)
        #expect(parsed.value.assertion == "ab+c/d==" && parsed.value.scope == "patient/Patient.read conf/V" && parsed.quirks.isEmpty)
        let access = VacaAccessRequest(code: "c+d", clientAssertion: "x.y.z")
        #expect(try VacaAccessRequest.parse(access.form.encoded(), mode: .strict).value == access)
        #expect(throws: SMOACError.self) { try FormBody.parse(Array("a=1&a=2".utf8), mode: .compat) }
        #expect(throws: SMOACError.self) { try FormBody.parse(Array("a=%4".utf8), mode: .compat) }
        #expect(throws: SMOACError.self) { try FormBody.parse(Array("a=%FF".utf8), mode: .compat) }
        #expect(throws: SMOACError.unsupportedGrantType) { try VacaAuthRequest.parse(Array("grant_type=password&assertion=x".utf8), mode: .compat) }
        #expect(throws: SMOACError.unsupportedGrantType) { try VacaAccessRequest.parse(Array("grant_type=client_credentials".utf8), mode: .compat) }
    }
}
