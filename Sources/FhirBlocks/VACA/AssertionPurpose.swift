/// What an assertion is presented for.
public enum AssertionPurpose: Sendable, Hashable {
    /// `vaca/auth`: an RFC 7523 JWT-bearer authorization grant.
    case authorizationGrant
    /// `vaca/access` and the token endpoint: RFC 7523 client authentication.
    case clientAuthentication
}
