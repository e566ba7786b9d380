import FhirBlocks

/// A wallet, app, provider or caregiver in a test: its key, device and (once registered) csiGuid.
struct TestParty: Sendable {
    var name: String
    var key: CsiSigningKey
    var deviceId: String
    var applicationClass: String
    var claims: [PublicClaim]
    var csi: CsiGuid

    static func wallet(_ name: String, firstName: String) -> TestParty {
        TestParty(name: name, key: .generate(), deviceId: "65073A24-A6B4-4FF6-93CA-5C8DCC857862", applicationClass: "org.fhirblocks.csa",
                  claims: [PublicClaim(key: "DateofBirth", value: "1970-01-01"), PublicClaim(key: "FirstName", value: firstName),
                           PublicClaim(key: "MiddleName", value: ""), PublicClaim(key: "LastName", value: "Test"), PublicClaim(key: "Gender", value: "F")],
                  csi: CsiGuid(randomBytes: Array(name.utf8)))
    }

    static func app(_ name: String) -> TestParty {
        TestParty(name: name, key: .generate(), deviceId: "11111111-2222-4333-8444-555555555555", applicationClass: "org.fhirblocks.dapp",
                  claims: PublicClaim.legacyEmptyClaims, csi: CsiGuid(randomBytes: Array(name.utf8)))
    }
}
