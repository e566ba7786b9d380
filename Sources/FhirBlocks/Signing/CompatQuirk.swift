/// One legacy-client behaviour that ``ProtocolMode/compat`` accepts and ``ProtocolMode/strict``
/// rejects (§1.10). The raw value is the stable name written into audit entries.
public enum CompatQuirk: String, Sendable, Hashable, CaseIterable, Comparable {
    /// §1.10 item 1: a `util/*` endpoint (documented as GET) called with POST.
    case postOnGetEndpoint = "post-on-get-endpoint"
    /// §1.10 item 2: the registration payload signs the hand-formatted claims text
    /// (`{"key": "…", "value": "…"}` with spaces) instead of compact JSON.
    case handBuiltClaimsText = "hand-built-claims-text"
    /// §1.10 item 3: `permissionedCsiGuid` (one string) instead of `permissionedCsiGuids`.
    case singleGranteeField = "single-grantee-field"
    /// §1.10 item 4: the README path `permission/fetchPermissionsGivenByMe`.
    case givenByMeAlias = "given-by-me-alias"
    /// §1.10 item 5: assertion parts in standard base64 (`+`, `/`, `=`) instead of base64url.
    case legacyJWTEncoding = "legacy-jwt-base64"
    /// §1.10 item 5: a DER signature over the payload JSON only, not over `header.payload`.
    case legacyJWTSignature = "legacy-jwt-payload-signature"
    /// §1.10 item 5: `iat`/`exp` as numeric strings.
    case stringTimeClaims = "string-time-claims"
    /// §1.5: a DER signature in an otherwise standard JWS (ES256 wants raw r‖s).
    case derJWSSignature = "der-jws-signature"
    /// §1.10 item 5/7: an assertion without `kid`.
    case missingKeyID = "missing-kid"
    /// §1.4 `vaca/access`: a legacy client assertion carrying only `code` and `iss` (no `aud`,
    /// `exp` or `jti`); it is bound to the single-use code instead.
    case codeBoundAssertion = "code-bound-assertion"
    /// §1.10 item 6: unencoded `+` in the `vaca/auth` form body, kept as `+`.
    case unencodedFormBody = "unencoded-form-body"
    /// §1.10 item 7: `jti` equal to the device identifier (constant per device); replay is
    /// checked on (iss, jti, iat) instead.
    case constantJTI = "constant-jti"
    /// §1.10 item 7: `sub` names the wallet (wcsi) rather than the client itself.
    case subjectIsWallet = "sub-is-wallet"
    /// §1.10 item 8: `Authorization: Bearer<token>` without a space (or other casing/spacing).
    case bearerWithoutSpace = "bearer-without-space"
    /// §1.10 item 8: `vaca/access` answered with the bare token as the body.
    case bareTokenResponse = "bare-token-response"
    /// §1.10 item 10: `accessType` is outside the signed payload, so it is treated as untrusted.
    case unsignedAccessType = "unsigned-access-type"
    /// §1.4: a legacy signed payload (no endpoint name, csiGuid not always signed).
    case legacySignedPayload = "legacy-signed-payload"
    /// §1.4: the older `fetchPublicClaims` payload `|ecdsa|csiGuid|dateTime|desiredCsiGuid|nonce|`.
    case olderFetchPublicClaimsPayload = "older-fetch-public-claims-payload"
    /// §1.5: a `publicKey` sent as a bare X9.63 point instead of SubjectPublicKeyInfo.
    case x963PublicKey = "x963-public-key"
    /// §1.4: `Patient/fbcFhirId` used as an alias for the token's patient.
    case fbcFhirIdAlias = "fbc-fhir-id-alias"
    /// §1.8: a grantor that is not a wallet passes on data without naming the patient, so the
    /// grant covers every patient it holds a covering permission from (the legacy behaviour).
    case implicitPatients = "implicit-patients"

    public static func < (lhs: CompatQuirk, rhs: CompatQuirk) -> Bool { lhs.rawValue < rhs.rawValue }
}
