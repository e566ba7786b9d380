import SmartHealthCards
import SmartHealthCardsHTTPS
import Synchronization

/// A command's HTTPS key resolver, created the first time an issuer that no `--issuer` folder
/// names is looked up: a run whose cards all come from local issuers starts no HTTP client (its
/// event loop threads and TLS set-up cost a run of a few cards more than verifying them).
final class LazyHTTPSKeyResolver: IssuerKeyResolver {
    private let configuration: HTTPSKeyResolver.Configuration
    private let created = Mutex<HTTPSKeyResolver?>(nil)

    init(configuration: HTTPSKeyResolver.Configuration) {
        self.configuration = configuration
    }

    /// The resolver, created on first use.
    private var resolver: HTTPSKeyResolver {
        created.withLock { created in
            if let resolver = created { return resolver }
            let resolver = HTTPSKeyResolver(configuration: configuration)
            created = resolver
            return resolver
        }
    }

    func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet? {
        try await resolver.keySet(issuer: issuer)
    }

    func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList? {
        try await resolver.revocationList(issuer: issuer, kid: kid)
    }

    /// Shuts the HTTP client down, if one was created.
    func shutdown() async {
        await created.withLock { $0 }?.shutdown()
    }
}
