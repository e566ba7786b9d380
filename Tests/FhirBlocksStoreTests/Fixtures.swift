import FhirBlocks
import FhirBlocksStore
import Foundation
import Testing

/// Records for the conformance checks: fixed keys and times, values that exercise every
/// column (nulls, extremes, non-ASCII text, empty lists).
enum Fixtures {
    /// An instant to count from (2025-06-15).
    static let t0 = Timestamp(millisecondsSince1970: 1_750_000_000_000)

    /// Three P-256 SubjectPublicKeyInfo keys (DER, base64).
    static let keyTexts = [
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAENwjmyq1ODNShUpKrl/stXoJCnKswfJjxhfI2CF9iamJIhdeNxpBimvDVehGEaD7KparnL6Cg3ztnfhQWkVrjNA==",
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE39j9KUpVcmALQ+aYq6leGve0U2tRZkJ00VwtypWrotTNjgrPPx1/aA5dZww0AuLHw7AA0b1U/Y+ZTZwXI7wTYQ==",
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE32ClMzzd/sWvooLq3No+bjxi2qjzv0xv68fQs1SB/02DMz8mesiAr51Y7oJhXwC2JlSlfFgXAYzNvLRDzZu9DQ==",
    ]

    static func key(_ index: Int) throws -> CsiPublicKey {
        let der = try #require(Data(base64Encoded: keyTexts[index % keyTexts.count]))
        return try CsiPublicKey(spkiDER: Array(der))
    }

    /// A fresh random csiGuid.
    static func csi() -> CsiGuid {
        var generator = SystemRandomNumberGenerator()
        return CsiGuid.random(using: &generator)
    }

    static func wallet(_ csi: CsiGuid = csi(), key index: Int = 0, at time: Timestamp = t0) throws -> CsiRegistration {
        CsiRegistration(csiGuid: csi, publicKey: try key(index), deviceId: "device-\(index)-ü", applicationClass: "org.fhirblocks.csa",
                        claims: [PublicClaim(key: "FirstName", value: "Zoë \"quoted\""), PublicClaim(key: "LastName", value: "Ñandú"),
                                 PublicClaim(key: "Gender", value: "")],
                        registeredAt: time)
    }

    static func app(_ csi: CsiGuid = csi(), key index: Int = 1, at time: Timestamp = t0) throws -> CsiRegistration {
        CsiRegistration(csiGuid: csi, publicKey: try key(index), deviceId: "", applicationClass: "org.fhirblocks.dapp",
                        claims: PublicClaim.legacyEmptyClaims, registeredAt: time)
    }

    /// A narrow scope: user Observation read/search, ceiling N, two sensitivities.
    static func narrowScope() throws -> PermissionScope {
        PermissionScope(permissionType: .user, resource: try #require(ResourceScope("Observation")),
                        access: try #require(AccessRights(scopeSuffix: "rs")), confidentialityCeiling: .N,
                        sensitivities: SensitivitySet(Set([try #require(SensitivityCode("HIV")), try #require(SensitivityCode("PSY"))])))
    }

    static func rootPermission(patient: CsiGuid, grantee: CsiGuid, at time: Timestamp = t0) -> Permission {
        Permission(id: PermissionID(UUID().uuidString.lowercased()), patient: patient, grantor: patient, grantee: grantee, scope: .owner,
                   window: .always, parent: nil, grantedAt: time)
    }

    static func delegated(from parent: Permission, to grantee: CsiGuid, at time: Timestamp = t0) throws -> Permission {
        Permission(id: PermissionID(UUID().uuidString.lowercased()), patient: parent.patient, grantor: parent.grantee, grantee: grantee,
                   scope: try narrowScope(), window: TimeWindow(notBefore: time, notAfter: time.adding(seconds: 86_400)),
                   parent: parent.id, grantedAt: time.adding(milliseconds: 1))
    }

    static func grantedScope() throws -> GrantedScope {
        GrantedScope(grants: [try narrowScope(), .owner],
                     scopes: [try #require(SmartScope("patient/Observation.rs")), try #require(SmartScope("openid"))],
                     dropped: ["patient/Unknown.read"])
    }

    static func token(client: CsiGuid, patient: CsiGuid, permissions: [PermissionID], at time: Timestamp = t0) throws -> StoredAccessToken {
        let hash = Hex.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
        return StoredAccessToken(tokenHash: hash, id: UUID().uuidString, client: client, patient: patient, scope: try grantedScope(),
                                 permissionIDs: permissions, issuedAt: time, expiresAt: time.adding(seconds: 3600))
    }

    static func code(client: CsiGuid, patient: CsiGuid, at time: Timestamp = t0) throws -> AuthorizationCode {
        AuthorizationCode(code: UUID().uuidString + "-code", client: client, patient: patient, scope: try grantedScope(),
                          permissionIDs: [PermissionID("p-1"), PermissionID("p-2")], issuedAt: time, expiresAt: time.adding(seconds: 60))
    }

    static func resource(type: String, id: String, patient: CsiGuid, version: Int, at time: Timestamp = t0) -> FHIRResourceRecord {
        let json = #"{"resourceType":"\#(type)","id":"\#(id)","meta":{"versionId":"\#(version)"},"note":"héllo \#(version)"}"#
        return FHIRResourceRecord(type: type, id: id, patient: patient, versionID: version, lastUpdated: time.adding(seconds: Int64(version)),
                                  json: Array(json.utf8) + [0x00, 0xFF])
    }

    static func auditEntry(_ type: AuditEventType = .permissionGrant, agent: String, at time: Timestamp = t0, reason: String? = nil) -> AuditEntry {
        AuditEntry(type: type, recorded: time, agent: agent, patient: "Patient/1", otherAgents: ["x", "y"], permissionIDs: ["p-1"],
                   resources: ["Observation/1"], scope: "patient/Observation.rs", requestHash: String(repeating: "ab", count: 32), reason: reason)
    }

    static func nonce(_ value: String = UUID().uuidString, owner: String = "owner", namespace: NonceKey.Namespace = .smoacNonce) -> NonceKey {
        NonceKey(namespace: namespace, owner: owner, value: value)
    }
}
