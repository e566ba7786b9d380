import FhirBlocks

/// Builds the ES256 JWS assertions a csi presents (§2.2, RFC 7523): header `alg` ES256,
/// `typ` JWT, `kid` = csiGuid; claims `iss` = `sub` = csiGuid, `aud` = the endpoint's URL,
/// `iat` = now, `exp` = now + lifetime (≤ 300 s), a fresh random `jti`, and optionally `scope`
/// (the `vaca/auth` grant) and `code` (binding a `vaca/access` assertion to its code).
public enum ClientAssertion {
    /// A signed compact JWS.
    public static func make(identity: CsiIdentity, audience: String, now: Timestamp, lifetimeSeconds: Int64,
                            scope: String? = nil, code: String? = nil) throws(FhirBlocksClientError) -> String {
        var generator = SystemRandomNumberGenerator()
        let issuedAt = now.secondsSince1970
        let claims = JWTClaims(iss: identity.csiGuid.rawValue, sub: identity.csiGuid.rawValue, aud: [audience],
                               exp: issuedAt + min(max(1, lifetimeSeconds), 300), iat: issuedAt,
                               jti: VACAAuthorizer.randomToken(using: &generator), scope: scope, code: code)
        do {
            return try AssertionBuilder.jws(header: JWTHeader(kid: identity.csiGuid.rawValue), claims: claims, key: identity.key)
        } catch {
            throw .invalidRequest("assertion: \(error)")
        }
    }
}
