/// Keys and revocation lists held in memory, by issuer URL.
public struct StaticKeyResolver: IssuerKeyResolver {
    private let keySets: [String: SHCJWKSet]
    private let revocationLists: [String: [String: SHCRevocationList]]

    /// Creates a resolver from key sets by issuer, and optionally revocation lists by issuer and kid.
    public init(_ keySets: [String: SHCJWKSet], revocationLists: [String: [SHCRevocationList]] = [:]) {
        self.keySets = keySets
        var lists: [String: [String: SHCRevocationList]] = [:]
        for (issuer, issuerLists) in revocationLists {
            for list in issuerLists { lists[issuer, default: [:]][list.kid] = list }
        }
        self.revocationLists = lists
    }

    /// The key set of `issuer`, or nil when it is not held.
    public func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet? {
        keySets[issuer]
    }

    /// The revocation list of `issuer`'s key `kid`, or nil when it is not held.
    public func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList? {
        revocationLists[issuer]?[kid]
    }
}
