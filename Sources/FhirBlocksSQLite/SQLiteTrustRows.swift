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

    /// The columns ``resourceByPosition(_:from:)`` reads, in its order.
    static let resourceColumns = TrustSQL.resourceColumns

    /// A resource row selected as ``resourceColumns`` (from column `first` on), read by position
    /// (no column-name lookups).
    static func resourceByPosition(_ row: Row, from first: Int = 0) throws -> FHIRResourceRecord {
        let json: Data = row[first + 5]
        return FHIRResourceRecord(type: row[first], id: row[first + 1], patient: try csi(row[first + 2], "fhir_resource"), versionID: row[first + 3],
                                  lastUpdated: Timestamp(millisecondsSince1970: row[first + 4]), json: Array(json))
    }

    static func audit(_ row: Row) throws -> AuditRecord {
        let leaf: Data = row["leaf_hash"]
        let bytes: Data = row["canonical"]
        guard let hash = MerkleHash(bytes: Array(leaf)) else { throw TrustStoreError.corrupt("audit_entry") }
        return AuditRecord(index: row["idx"], leafHash: hash, canonicalBytes: Array(bytes))
    }

    static func smartClient(_ row: Row) throws -> SmartClient {
        let uris: String = row["redirect_uris"]
        let spki: Data? = row["public_key"]
        var key: CsiPublicKey?
        if let spki {
            do {
                key = try CsiPublicKey(spkiDER: Array(spki))
            } catch {
                throw TrustStoreError.corrupt("smart_client")
            }
        }
        return SmartClient(clientID: try csi(row["client_id"], "smart_client"), redirectURIs: uris.split(separator: "\n").map(String.init),
                           clientName: row["client_name"], registeredAt: Timestamp(millisecondsSince1970: row["registered_at"]), publicKey: key)
    }

    static func smartAuthorization(_ row: Row) throws -> SmartAuthorization {
        guard let status = SmartAuthorization.Status(rawValue: row["status"]) else { throw TrustStoreError.corrupt("smart_authorization") }
        let patient: String? = row["patient"]
        let granted: String? = row["granted_scope"]
        let codeExpiresAt: Int64? = row["code_expires_at"]
        return SmartAuthorization(id: row["id"], userCode: row["user_code"], client: try csi(row["client"], "smart_authorization"),
                                  redirectURI: row["redirect_uri"], requestedScope: row["requested_scope"], state: row["state"],
                                  codeChallenge: row["code_challenge"], createdAt: Timestamp(millisecondsSince1970: row["created_at"]),
                                  expiresAt: Timestamp(millisecondsSince1970: row["expires_at"]), status: status,
                                  patient: try patient.map { try csi($0, "smart_authorization") },
                                  grantedScope: try granted.map { try GrantedScope(storageJSON: $0) },
                                  permissionIDs: permissionIDs(row["permission_ids"]), offline: row["offline"], codeHash: row["code_hash"],
                                  codeExpiresAt: codeExpiresAt.map(Timestamp.init(millisecondsSince1970:)))
    }

    static func refreshToken(_ row: Row) throws -> StoredRefreshToken {
        StoredRefreshToken(tokenHash: row["token_hash"], authorizationID: row["authorization_id"], client: try csi(row["client"], "refresh_token"),
                           patient: try csi(row["patient"], "refresh_token"), scope: try GrantedScope(storageJSON: row["scope"]),
                           permissionIDs: permissionIDs(row["permission_ids"]), issuedAt: Timestamp(millisecondsSince1970: row["issued_at"]),
                           expiresAt: Timestamp(millisecondsSince1970: row["expires_at"]), used: row["used"])
    }
}
