import ExactJSON
@testable import FhirBlocks
import TestSupport

/// A small deterministic generator (SplitMix64) so property and fuzz tests reproduce.

/// The Appendix A test vectors of the protocol doc (TEST KEY ONLY).
enum AppendixA {
    static let privateScalarHex = "c9806898a0334916c860748880a541f093b579a9b1f32934d86c363c39800357"
    static let publicKeyBase64 = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE0HINxpGqgAlroy/tHLl8K2IGkNBt4DF7hhjVzmXrco+WgbUXsc2hfQ2D0zXZxKipqbCxs8cQbY88crxQk9wnXw=="
    static let deviceId = "65073A24-A6B4-4FF6-93CA-5C8DCC857862"
    static let dateTime = "2018-01-12T17:03:21.000Z"
    static let nonce = "a1B2c3D4-e5F6-g7H8-i9J0-k1L2m3N4o5P6"
    static let granter = "b8565047-08d8-4293-b81e-ec2e9d37db8e"
    static let grantee = "2cf13cf4-3780-4f2a-9310-23abd3d1596a"

    static let registrationPayload = #"""
        |ecdsa|MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE0HINxpGqgAlroy/tHLl8K2IGkNBt4DF7hhjVzmXrco+WgbUXsc2hfQ2D0zXZxKipqbCxs8cQbY88crxQk9wnXw==|\#
        65073A24-A6B4-4FF6-93CA-5C8DCC857862|2018-01-12T17:03:21.000Z|a1B2c3D4-e5F6-g7H8-i9J0-k1L2m3N4o5P6|[{"key": "DateofBirth", "value": ""},\#
        {"key": "FirstName", "value": ""},{"key": "MiddleName", "value": ""},{"key": "LastName", "value": ""},{"key": "Gender", "value": ""}]|
        """#
    static let registrationSignature = "MEUCIDiYVsohnzJj9yhMWXRmDdg3ryOG/FMgRvq0VcJKFVpuAiEArhLV8tZ1rOjG7WN7CNZ9otJBYKDMWNoAm2Yd+xqd8C4="

    static let writePermissionPayload = """
        |2018-02-28T00:00:00.000Z|2018-01-12T00:00:00.000Z|2cf13cf4-3780-4f2a-9310-23abd3d1596a|patient|V|ETH|SOC|Patient|\
        b8565047-08d8-4293-b81e-ec2e9d37db8e|2018-01-12T17:03:21.000Z|a1B2c3D4-e5F6-g7H8-i9J0-k1L2m3N4o5P6|
        """

    static let legacyAssertion = """
        eyJhbGciOiJFUzI1NiIsInR5cCI6Imp3dCJ9.eyJpc3MiOiJiODU2NTA0Ny0wOGQ4LTQyOTMtYjgxZS1lYzJlOWQzN2RiOGUiLCJzdWIiOiJiODU2NTA0Ny0wOGQ4LTQyOTMtYjgxZS1lYzJlOWQz\
        N2RiOGUiLCJhdWQiOiJodHRwOi8vc21vYWMuZmhpcmJsb2Nrcy5pbzo4MDgwL3ZhY2EvYXV0aCIsImlhdCI6IjE1MTU3NzY2MDEiLCJleHAiOiIxNTE1Nzc2OTAxIiwianRpIjoiNjUwNzNBMjQtQ\
        TZCNC00RkY2LTkzQ0EtNUM4RENDODU3ODYyIiwic2NvcGUiOiJwYXRpZW50L1BhdGllbnQucmVhZCBzZW5zL0VUSCBzZW5zL1NPQyBjb25mL1YiLCJzdGEiOiI2NTA3M0EyNC1BNkI0LTRGRjYtOT\
        NDQS01QzhEQ0M4NTc4NjIifQ==.MEQCIH9AROrcwHglEWO68RX7JTf5wJo1W+PQrrNsK0XNRy0uAiBzpxRgMNlt+1q0/a1TXSwLy59/iV+mMJU+Qkavj82G7w==
        """
    static let legacyAudience = "http://smoac.fhirblocks.io:8080/vaca/auth"

    static let standardJWS = """
        eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImI4NTY1MDQ3LTA4ZDgtNDI5My1iODFlLWVjMmU5ZDM3ZGI4ZSJ9.eyJpc3MiOiJiODU2NTA0Ny0wOGQ4LTQyOTMtYjgxZS1lYzJlOWQz\
        N2RiOGUiLCJzdWIiOiJiODU2NTA0Ny0wOGQ4LTQyOTMtYjgxZS1lYzJlOWQzN2RiOGUiLCJhdWQiOiJodHRwczovL2ZoaXJibG9ja3MuZXhhbXBsZS92YWNhL2F1dGgiLCJpYXQiOjE1MTU3NzY2M\
        DEsImV4cCI6MTUxNTc3NjkwMSwianRpIjoiM2YwYzFlOWEtN2Y1NS00YTQzLTljMGUtMmQ4ZjdiMWM1ZTExIiwic2NvcGUiOiJwYXRpZW50L1BhdGllbnQucmVhZCBzZW5zL0VUSCBzZW5zL1NPQy\
        Bjb25mL1YiLCJzdGEiOiI2NTA3M0EyNC1BNkI0LTRGRjYtOTNDQS01QzhEQ0M4NTc4NjIifQ.B6kyRb7n9PIdMCe7DFNcWLWXHtm3qmpFWKLyX6ITzoRMyY76dMQqVxQRLxaOV2cddL0rWenueuXR\
        _O_QcgDKJg
        """
    static let standardAudience = "https://fhirblocks.example/vaca/auth"

    /// 2018-01-12T17:03:21Z.
    static let now = Timestamp(secondsSince1970: 1_515_776_601)

    static var signingKey: CsiSigningKey {
        // The scalar is a fixed valid test key; a failure here fails every test that uses it.
        (try? CsiSigningKey(rawScalar: Hex.decode(privateScalarHex) ?? [])) ?? CsiSigningKey.generate()
    }

    static var publicKey: CsiPublicKey { signingKey.publicKey }

    static func registrationRequest(signature: String = registrationSignature) -> CsiRegistrationRequest {
        CsiRegistrationRequest(applicationClass: "org.fhirblocks.dapp",
                               envelope: SMOACEnvelope(cipherField: .cipherSpec, csiGuid: granter, dateTime: dateTime, nonce: nonce, signature: signature),
                               deviceId: deviceId, publicClaims: PublicClaim.legacyEmptyClaims, publicKey: publicKeyBase64)
    }

    static func writePermissionRequest(accessType: String? = "write", grantees: [String] = [grantee]) -> WritePermissionRequest {
        WritePermissionRequest(
            envelope: SMOACEnvelope(csiGuid: granter, dateTime: dateTime, nonce: nonce, signature: ""),
            permission: PermissionGrantBody(startTime: "2018-01-12T00:00:00.000Z", endTime: "2018-02-28T00:00:00.000Z",
                                            timeStamp: dateTime, grantees: grantees,
                                            heartScope: HeartScope(accessType: accessType, confidentialityScope: "V", permissionType: "patient",
                                                                   resourceScope: "Patient", sensitivityScope: ["ETH", "SOC"])))
    }
}

/// Shorthand for a known-valid csiGuid in tests.
func csi(_ text: String) -> CsiGuid {
    CsiGuid(text) ?? CsiGuid(randomBytes: Array(text.utf8))
}

/// A stable csiGuid numbered `n`.
func csi(number n: Int) -> CsiGuid {
    let digits = String(n, radix: 16)
    return csi("00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits)
}

/// Timestamp at `seconds` after 2018-01-12T17:03:21Z.
func at(_ seconds: Int64) -> Timestamp { AppendixA.now.adding(seconds: seconds) }
