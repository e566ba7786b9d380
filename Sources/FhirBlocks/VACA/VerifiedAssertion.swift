/// An assertion whose signature, audience, times and single use have been checked.
public struct VerifiedAssertion: Sendable, Hashable {
    /// The client (`iss`).
    public var issuer: CsiGuid
    /// `sub` as sent.
    public var subject: String
    /// The wallet `sub` names when it is not the client (compat only), used as the patient.
    public var subjectWallet: CsiGuid?
    /// `scope` claim.
    public var scope: String?
    /// `jti` claim.
    public var jti: String?
    /// `code` claim (legacy `vaca/access`).
    public var code: String?
    /// `iat`.
    public var issuedAt: Timestamp?
    /// `exp`.
    public var expiresAt: Timestamp?
    /// Quirks accepted.
    public var quirks: [CompatQuirk]

    /// Creates a verified assertion.
    public init(issuer: CsiGuid, subject: String, subjectWallet: CsiGuid?, scope: String?, jti: String?, code: String?,
                issuedAt: Timestamp?, expiresAt: Timestamp?, quirks: [CompatQuirk]) {
        self.issuer = issuer
        self.subject = subject
        self.subjectWallet = subjectWallet
        self.scope = scope
        self.jti = jti
        self.code = code
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.quirks = quirks
    }
}
