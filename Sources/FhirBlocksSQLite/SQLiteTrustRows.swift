import FhirBlocks
import FhirBlocksStore
import Foundation
import GRDB

/// Reads the trust store's rows back into records; a value that does not read back is
/// ``TrustStoreError/corrupt(_:)`` naming the table.
enum SQLiteTrustRows {
    static func csi(_ text: String, _ table: String) throws -> CsiGuid {
        guard let csi = CsiGuid(text) else { throw TrustStoreError.corrupt(table) }
        return csi
    }

    static func permissionIDs(_ text: String) -> [PermissionID] {
        text.split(separator: " ").map { PermissionID(String($0)) }
    }

    static func registration(_ row: Row) throws -> CsiRegistration {
        let spki: Data = row["spki"]
        let key: CsiPublicKey
        do {
            key = try CsiPublicKey(spkiDER: Array(spki))
        } catch {
            throw TrustStoreError.corrupt("registration")
        }
        return CsiRegistration(csiGuid: try csi(row["csi"], "registration"), publicKey: key, deviceId: row["device_id"],
                               applicationClass: row["application_class"], claims: try PublicClaimsStorage.decode(row["claims"]),
                               registeredAt: Timestamp(millisecondsSince1970: row["registered_at"]))
    }

    static func permission(_ row: Row) throws -> Permission {
        let parent: String? = row["parent"]
        let revokedAt: Int64? = row["revoked_at"]
        return Permission(id: PermissionID(row["id"]), patient: try csi(row["patient"], "permission"), grantor: try csi(row["grantor"], "permission"),
                          grantee: try csi(row["grantee"], "permission"), scope: try PermissionScope(storageText: row["scope"]),
                          window: TimeWindow(notBefore: Timestamp(millisecondsSince1970: row["not_before"]),
                                             notAfter: Timestamp(millisecondsSince1970: row["not_after"])),
                          parent: parent.map(PermissionID.init), grantedAt: Timestamp(millisecondsSince1970: row["granted_at"]),
                          revokedAt: revokedAt.map(Timestamp.init(millisecondsSince1970:)))
    }

    static func authorizationCode(_ row: Row) throws -> AuthorizationCode {
        AuthorizationCode(code: row["code"], client: try csi(row["client"], "auth_code"), patient: try csi(row["patient"], "auth_code"),
                          scope: try GrantedScope(storageJSON: row["scope"]), permissionIDs: permissionIDs(row["permission_ids"]),
                          issuedAt: Timestamp(millisecondsSince1970: row["issued_at"]), expiresAt: Timestamp(millisecondsSince1970: row["expires_at"]))
    }

    static func token(_ row: Row) throws -> StoredAccessToken {
        StoredAccessToken(tokenHash: row["token_hash"], id: row["id"], client: try csi(row["client"], "access_token"),
                          patient: try csi(row["patient"], "access_token"), scope: try GrantedScope(storageJSON: row["scope"]),
                          permissionIDs: permissionIDs(row["permission_ids"]), issuedAt: Timestamp(millisecondsSince1970: row["issued_at"]),
                          expiresAt: Timestamp(millisecondsSince1970: row["expires_at"]), revoked: row["revoked"])
    }

    static func resource(_ row: Row) throws -> FHIRResourceRecord {
        let json: Data = row["json"]
        return FHIRResourceRecord(type: row["type"], id: row["id"], patient: try csi(row["patient"], "fhir_resource"), versionID: row["version_id"],
                                  lastUpdated: Timestamp(millisecondsSince1970: row["last_updated"]), json: Array(json))
    }

    static func audit(_ row: Row) throws -> AuditRecord {
        let leaf: Data = row["leaf_hash"]
        let bytes: Data = row["canonical"]
        guard let hash = MerkleHash(bytes: Array(leaf)) else { throw TrustStoreError.corrupt("audit_entry") }
        return AuditRecord(index: row["idx"], leafHash: hash, canonicalBytes: Array(bytes))
    }
}
