/// Asks several resolvers in order; the first that knows the issuer answers, for its keys and its
/// revocation lists alike.
public struct CompositeKeyResolver: IssuerKeyResolver {
    private let resolvers: [any IssuerKeyResolver]

    /// Creates a resolver that asks `resolvers` in order.
    public init(_ resolvers: [any IssuerKeyResolver]) {
        self.resolvers = resolvers
    }

    /// The key set from the first resolver that knows `issuer`.
    public func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet? {
        for resolver in resolvers {
            if let keySet = try await resolver.keySet(issuer: issuer) { return keySet }
        }
        return nil
    }

    /// The revocation list from the first resolver that knows `issuer`.
    public func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList? {
        for resolver in resolvers where try await resolver.keySet(issuer: issuer) != nil {
            return try await resolver.revocationList(issuer: issuer, kid: kid)
        }
        return nil
    }
}
