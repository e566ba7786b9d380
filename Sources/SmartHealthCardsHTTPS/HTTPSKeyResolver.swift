import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import SmartHealthCards
import Synchronization

/// Fetches an issuer's JWKS (`<iss>/.well-known/jwks.json`, rule 5) and per-key CRLs
/// (`<iss>/.well-known/crl/<kid>.json`, rule 41) over HTTPS, with a cache that honours
/// `Cache-Control`.
///
/// ```swift
/// let https = HTTPSKeyResolver(configuration: .init(cacheFolder: cacheFolderURL))
/// let verifier = SHCVerifier(resolver: CompositeKeyResolver([snapshot, https]), now: Date())
/// // … verify cards …
/// for notice in https.staleCopiesUsed { print("warning: \(notice)") }
/// await https.shutdown()
/// ```
///
/// **Issuer URLs** are checked before any network access (rule 6): `https`, no trailing `/`, a
/// host, no user info, query, fragment or dot segments. A bad one is
/// `SHCResolverError.unreadable(issuer:resource:reason:)` with the reason. The resolver only
/// ever fetches the documents of the issuer it is asked about (rule 33).
///
/// **Fetching**: TLS with full certificate and host name verification against the system trust
/// store; a whole fetch bounded by ``Configuration/requestTimeout``; bodies over
/// ``Configuration/maximumResponseSize`` rejected; redirects followed by hand, at most
/// ``Configuration/maximumRedirects``, and only to `https` URLs.
///
/// **Caching** (RFC 9111, as a private cache): `max-age` (else `Expires` − `Date`, else
/// ``Configuration/defaultFreshness``) less `Age`; `no-store` is never kept; `no-cache` is
/// revalidated on every use; a stale entry is revalidated with `If-None-Match` (from `ETag`)
/// and/or `If-Modified-Since` (from `Last-Modified`), and a 304 keeps the cached body. Entries
/// live in memory and, with ``Configuration/cacheFolder``, on disk, so a second run of a
/// command-line tool verifies offline. When the issuer cannot be reached and a copy is cached,
/// the copy is used and reported (``staleCopiesUsed``, ``Configuration/onStaleCopy``). A body is
/// cached only once it parses as a JWKS or CRL.
///
/// **Answers**: a JWKS that cannot be fetched (a 404 included) is `.unreadable`; a CRL answered
/// with 404 or 410 is nil ("no CRL"); bodies that do not parse are `.malformedKeySet` /
/// `.malformedRevocationList`. The resolver never returns nil for a JWKS: it knows every https
/// issuer, so put it last in a `CompositeKeyResolver`.
///
/// **Client lifetime**: ``init(configuration:)`` creates an `HTTPClient` that the resolver owns;
/// call ``shutdown()`` when done (if the resolver is released without it, the client is shut
/// down in the background). ``init(configuration:httpClient:)`` uses the caller's client, which
/// the caller shuts down.
public final class HTTPSKeyResolver: IssuerKeyResolver {
    /// The configuration the resolver was created with.
    public let configuration: Configuration

    private let client: HTTPClient
    private let ownsClient: Bool
    private let cache: DocumentCache
    private let fetcher: DocumentFetcher
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    private struct State {
        var isShutDown = false
        var staleCopies: [StaleCopy] = []
        /// Told when the client this resolver owns has shut down after the resolver was released
        /// without ``shutdown()`` (tests wait on it instead of sleeping).
        var releasedClientShutDown: (@Sendable ((any Error)?) -> Void)?
    }

    /// Sets what is told when the owned client has shut down after a release without
    /// ``shutdown()``: the error, or nil.
    func onReleasedClientShutdown(_ observer: @escaping @Sendable ((any Error)?) -> Void) {
        state.withLock { $0.releasedClientShutDown = observer }
    }

    /// Creates a resolver with its own `HTTPClient` (see ``Configuration/httpClientConfiguration``);
    /// call ``shutdown()`` when done with it.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, additionalTrustRoots: [], now: { Date() })
    }

    /// Creates a resolver that uses `httpClient`, which the caller keeps and shuts down.
    ///
    /// The client must not follow redirects itself (create it with
    /// ``Configuration/httpClientConfiguration``, or at least `redirectConfiguration: .disallow`):
    /// a response that the client reached through a redirect is rejected. Its TLS settings and
    /// connect timeout are the client's own.
    public init(configuration: Configuration = Configuration(), httpClient: HTTPClient) {
        self.configuration = configuration
        self.client = httpClient
        self.ownsClient = false
        self.cache = DocumentCache(folder: configuration.cacheFolder)
        self.fetcher = DocumentFetcher(client: httpClient, configuration: configuration)
        self.now = { Date() }
    }

    /// Creates a resolver with its own client that also trusts `additionalTrustRoots` (a test
    /// server's certificate authority) and reads the time from `now`. For tests only: production
    /// code uses ``init(configuration:)``, which trusts the system store alone.
    @_spi(Testing)
    public init(configuration: Configuration, additionalTrustRoots: [NIOSSLCertificate],
                now: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: configuration.httpClientConfiguration(additionalTrustRoots: additionalTrustRoots))
        self.ownsClient = true
        self.cache = DocumentCache(folder: configuration.cacheFolder)
        self.fetcher = DocumentFetcher(client: client, configuration: configuration)
        self.now = now
    }

    deinit {
        let (needsShutdown, observer) = state.withLock { (ownsClient && !$0.isShutDown, $0.releasedClientShutDown) }
        if needsShutdown { client.shutdown(queue: .global()) { error in observer?(error) } }
    }

    /// Shuts down the client the resolver created; does nothing for a client passed in, or when
    /// already shut down. Fetches made afterwards fail (cached documents are still served while
    /// fresh).
    public func shutdown() async {
        let shouldShutDown = state.withLock { state in
            defer { state.isShutDown = true }
            return ownsClient && !state.isShutDown
        }
        if shouldShutDown { try? await client.shutdown() }
    }

    /// Every stale copy used so far in place of a failed fetch, oldest first.
    public var staleCopiesUsed: [StaleCopy] {
        state.withLock { $0.staleCopies }
    }

    /// The JWKS of `issuer`, from `<iss>/.well-known/jwks.json` or the cache.
    public func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet? {
        let url = IssuerURL.keySetURL(issuer: issuer)
        let checked = try IssuerURL(issuer, resource: url)
        let keySet = try await resolve(url, issuer: checked.issuer) { bytes throws(SHCResolverError) in
            do throws(SHCKeyError) {
                return try SHCJWKSet(jsonBytes: bytes)
            } catch {
                throw .malformedKeySet(issuer: issuer, error)
            }
        }
        guard let keySet else {
            throw .unreadable(issuer: issuer, resource: url, reason: "HTTP 404: the issuer publishes no JWKS there")
        }
        return keySet
    }

    /// The CRL of `issuer`'s key `kid`, from `<iss>/.well-known/crl/<kid>.json` or the cache; nil
    /// when the server answers 404 or 410. Fetched only when asked (the verifier asks when the
    /// key has `crlVersion`).
    public func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList? {
        guard IssuerURL.isUsableKid(kid) else {
            throw .unreadable(issuer: issuer, resource: IssuerURL.revocationListURL(issuer: issuer, kid: "<kid>"),
                              reason: "the kid is not base64url, so it is not placed in a URL")
        }
        let url = IssuerURL.revocationListURL(issuer: issuer, kid: kid)
        let checked = try IssuerURL(issuer, resource: url)
        return try await resolve(url, issuer: checked.issuer) { bytes throws(SHCResolverError) in
            do throws(SHCRevocationError) {
                return try SHCRevocationList(jsonBytes: bytes)
            } catch {
                throw .malformedRevocationList(issuer: issuer, kid: kid, error)
            }
        }
    }

    /// The document at `url` parsed by `parse`, from the cache while fresh, else fetched (or
    /// revalidated); nil when the server answers 404 or 410. A fetched body is cached only after
    /// it parses.
    private func resolve<Value>(
        _ url: String, issuer: String, parse: ([UInt8]) throws(SHCResolverError) -> Value
    ) async throws(SHCResolverError) -> Value? {
        var cached = await cache.entry(for: url)
        if let fresh = cached, fresh.isFresh(at: now(), defaultLifetime: configuration.defaultFreshnessSeconds) {
            do throws(SHCResolverError) {
                return try parse(Array(fresh.body))
            } catch {
                // Only a damaged cache file can get here (bodies are cached after they parse).
                await cache.remove(url: url)
                cached = nil
            }
        }
        let outcome: DocumentFetcher.Outcome
        do {
            outcome = try await fetcher.fetch(url, cached: cached)
        } catch {
            guard error.allowsStaleCopy, configuration.useStaleCopiesWhenOffline, let cached,
                  let value = try? parse(Array(cached.body)) else {
                throw .unreadable(issuer: issuer, resource: url, reason: error.reason)
            }
            let notice = StaleCopy(issuer: issuer, url: url, receivedAt: cached.receivedAt, reason: error.reason)
            state.withLock { $0.staleCopies.append(notice) }
            configuration.onStaleCopy?(notice)
            return value
        }
        switch outcome {
        case .document(let body, let headers):
            let value = try parse(body)
            if CacheControl(fieldValues: headers["cache-control"]).noStore {
                await cache.remove(url: url)
            } else {
                await cache.store(CachedDocument(url: url, body: Data(body), receivedAt: now(),
                                                 headerFields: headers.map { (name: $0.name, value: $0.value) }))
            }
            return value
        case .notModified(let headers):
            // The fetcher reports 304 only to a conditional request, which needs a cached entry.
            guard let cached else {
                throw .unreadable(issuer: issuer, resource: url, reason: "HTTP 304 without a cached copy")
            }
            let value = try parse(Array(cached.body))
            let updated = cached.revalidated(at: now(), headerFields: headers.map { (name: $0.name, value: $0.value) })
            if updated.cacheControl.noStore {
                await cache.remove(url: url)
            } else {
                await cache.store(updated)
            }
            return value
        case .notFound:
            await cache.remove(url: url)
            return nil
        }
    }
}
