/// Finds an issuer's public keys and revocation lists.
///
/// A resolver answers only for the issuer it is asked about (rule 33: a card's key is looked up
/// in the JWKS of *that* `iss` only). It returns nil when it does not know the issuer (so a
/// ``CompositeKeyResolver`` can ask the next one) and throws when it knows the issuer but cannot
/// produce its keys. Implementations: ``StaticKeyResolver``, ``FolderKeyResolver``,
/// ``VCISnapshot``, ``CompositeKeyResolver``; an HTTPS resolver lives in another module.
public protocol IssuerKeyResolver: Sendable {
    /// The JWK set of `issuer`, or nil when this resolver does not know the issuer.
    func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet?

    /// The revocation list of `issuer`'s key `kid` (`<iss>/.well-known/crl/<kid>.json`), or nil
    /// when there is none.
    func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList?
}
