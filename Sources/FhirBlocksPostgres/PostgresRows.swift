import FhirBlocks
import FhirBlocksStore
import NIOCore
import PostgresNIO

/// Reads the store's rows back into records. Anything that does not decode is
/// ``TrustStoreError/corrupt(_:)`` naming the table, never the value.
enum PostgresRows {
    static func decode<each Column: PostgresDecodable>(
        _ row: PostgresRow, as types: (repeat each Column).Type, table: String
    ) throws(TrustStoreError) -> (repeat each Column) {
        do {
            return try row.decode(types)
        } catch {
            throw .corrupt(table)
        }
    }

    static func csi(_ text: String, table: String) throws(TrustStoreError) -> CsiGuid {
        guard let csi = CsiGuid(text) else { throw .corrupt(table) }
        return csi
    }

    static func bytes(_ buffer: ByteBuffer) -> [UInt8] { Array(buffer.readableBytesView) }

    static func registration(_ row: PostgresRow) throws(TrustStoreError) -> CsiRegistration {
        let table = "registration"
        let (csi, spki, deviceID, applicationClass, claims, registeredAt) =
            try decode(row, as: (String, ByteBuffer, String, String, String, Int64).self, table: table)
        let key: CsiPublicKey
        do {
            key = try CsiPublicKey(spkiDER: bytes(spki))
        } catch {
            throw .corrupt("registration spki")
        }
        let decodedClaims: [PublicClaim]
        do {
            decodedClaims = try PublicClaimsStorage.decode(claims)
        } catch {
            throw .corrupt("registration claims")
        }
        return CsiRegistration(csiGuid: try Self.csi(csi, table: table), publicKey: key, deviceId: deviceID, applicationClass: applicationClass,
                               claims: decodedClaims, registeredAt: Timestamp(millisecondsSince1970: registeredAt))
    }

    static func permission(_ row: PostgresRow) throws(TrustStoreError) -> Permission {
        let table = "permission"
        let (id, patient, grantor, grantee, scope, notBefore, notAfter, parent, grantedAt, revokedAt) =
            try decode(row, as: (String, String, String, String, String, Int64, Int64, String?, Int64, Int64?).self, table: table)
        let decodedScope: PermissionScope
        do {
            decodedScope = try PermissionScope(storageText: scope)
        } catch {
            throw .corrupt("permission scope")
        }
        return Permission(id: PermissionID(id), patient: try csi(patient, table: table), grantor: try csi(grantor, table: table),
                          grantee: try csi(grantee, table: table), scope: decodedScope,
                          window: TimeWindow(notBefore: Timestamp(millisecondsSince1970: notBefore),
                                             notAfter: Timestamp(millisecondsSince1970: notAfter)),
                          parent: parent.map(PermissionID.init), grantedAt: Timestamp(millisecondsSince1970: grantedAt),
                          revokedAt: revokedAt.map { Timestamp(millisecondsSince1970: $0) })
    }

    static func token(_ row: PostgresRow) throws(TrustStoreError) -> StoredAccessToken {
        let table = "access_token"
        let (hash, id, client, patient, scope, permissionIDs, issuedAt, expiresAt, revoked) =
            try decode(row, as: (String, String, String, String, String, [String], Int64, Int64, Bool).self, table: table)
        let decodedScope: GrantedScope
        do {
            decodedScope = try GrantedScope(storageJSON: scope)
        } catch {
            throw .corrupt("access_token scope")
        }
        return StoredAccessToken(tokenHash: hash, id: id, client: try csi(client, table: table), patient: try csi(patient, table: table),
                                 scope: decodedScope, permissionIDs: permissionIDs.map(PermissionID.init),
                                 issuedAt: Timestamp(millisecondsSince1970: issuedAt), expiresAt: Timestamp(millisecondsSince1970: expiresAt),
                                 revoked: revoked)
    }

    static func authorizationCode(_ row: PostgresRow) throws(TrustStoreError) -> AuthorizationCode {
        let table = "auth_code"
        let (code, client, patient, scope, permissionIDs, issuedAt, expiresAt) =
            try decode(row, as: (String, String, String, String, [String], Int64, Int64).self, table: table)
        let decodedScope: GrantedScope
        do {
            decodedScope = try GrantedScope(storageJSON: scope)
        } catch {
            throw .corrupt("auth_code scope")
        }
        return AuthorizationCode(code: code, client: try csi(client, table: table), patient: try csi(patient, table: table), scope: decodedScope,
                                 permissionIDs: permissionIDs.map(PermissionID.init), issuedAt: Timestamp(millisecondsSince1970: issuedAt),
                                 expiresAt: Timestamp(millisecondsSince1970: expiresAt))
    }

    static func resource(_ row: PostgresRow) throws(TrustStoreError) -> FHIRResourceRecord {
        let table = "fhir_resource"
        let (type, id, patient, version, lastUpdated, json) =
            try decode(row, as: (String, String, String, Int64, Int64, ByteBuffer).self, table: table)
        return FHIRResourceRecord(type: type, id: id, patient: try csi(patient, table: table), versionID: Int(version),
                                  lastUpdated: Timestamp(millisecondsSince1970: lastUpdated), json: bytes(json))
    }

    static func auditRecord(_ row: PostgresRow) throws(TrustStoreError) -> AuditRecord {
        let table = "audit_entry"
        let (index, leaf, canonical) = try decode(row, as: (Int64, ByteBuffer, ByteBuffer).self, table: table)
        guard let leafHash = MerkleHash(bytes: bytes(leaf)) else { throw .corrupt(table) }
        return AuditRecord(index: Int(index), leafHash: leafHash, canonicalBytes: bytes(canonical))
    }

    static func grantedScope(_ text: String, table: String) throws(TrustStoreError) -> GrantedScope {
        do {
            return try GrantedScope(storageJSON: text)
        } catch {
            throw .corrupt("\(table) scope")
        }
    }

    static func smartClient(_ row: PostgresRow) throws(TrustStoreError) -> SmartClient {
        let table = "smart_client"
        let (clientID, uris, name, registeredAt, spki) = try decode(row, as: (String, [String], String?, Int64, ByteBuffer?).self, table: table)
        var key: CsiPublicKey?
        if let spki {
            do {
                key = try CsiPublicKey(spkiDER: bytes(spki))
            } catch {
                throw .corrupt("smart_client public_key")
            }
        }
        return SmartClient(clientID: try csi(clientID, table: table), redirectURIs: uris, clientName: name,
                           registeredAt: Timestamp(millisecondsSince1970: registeredAt), publicKey: key)
    }

    /// A SMART authorization row, its columns in `TrustSQL.smartAuthorizationColumns`' order.
    static func smartAuthorization(_ row: PostgresRow) throws(TrustStoreError) -> SmartAuthorization {
        let table = "smart_authorization"
        let (id, userCode, client, redirectURI, requestedScope, state, challenge, createdAt, expiresAt, statusText, patient,
             granted, permissionIDs, offline, codeHash, codeExpiresAt) =
            try decode(row, as: (String, String, String, String, String, String?, String, Int64, Int64, String, String?,
                                 String?, [String], Bool, String?, Int64?).self, table: table)
        guard let status = SmartAuthorization.Status(rawValue: statusText) else { throw .corrupt(table) }
        var patientCsi: CsiGuid?
        if let patient { patientCsi = try csi(patient, table: table) }
        var grantedScope: GrantedScope?
        if let granted { grantedScope = try Self.grantedScope(granted, table: table) }
        return SmartAuthorization(id: id, userCode: userCode, client: try csi(client, table: table), redirectURI: redirectURI,
                                  requestedScope: requestedScope, state: state, codeChallenge: challenge,
                                  createdAt: Timestamp(millisecondsSince1970: createdAt), expiresAt: Timestamp(millisecondsSince1970: expiresAt),
                                  status: status, patient: patientCsi, grantedScope: grantedScope, permissionIDs: permissionIDs.map(PermissionID.init),
                                  offline: offline, codeHash: codeHash, codeExpiresAt: codeExpiresAt.map { Timestamp(millisecondsSince1970: $0) })
    }

    /// A refresh token row, its columns in ``TrustSQL/refreshTokenColumns``' order.
    static func refreshToken(_ row: PostgresRow) throws(TrustStoreError) -> StoredRefreshToken {
        let table = "refresh_token"
        let (hash, authorizationID, client, patient, scope, permissionIDs, issuedAt, expiresAt, used) =
            try decode(row, as: (String, String, String, String, String, [String], Int64, Int64, Bool).self, table: table)
        return StoredRefreshToken(tokenHash: hash, authorizationID: authorizationID, client: try csi(client, table: table),
                                  patient: try csi(patient, table: table), scope: try grantedScope(scope, table: table),
                                  permissionIDs: permissionIDs.map(PermissionID.init), issuedAt: Timestamp(millisecondsSince1970: issuedAt),
                                  expiresAt: Timestamp(millisecondsSince1970: expiresAt), used: used)
    }
}
