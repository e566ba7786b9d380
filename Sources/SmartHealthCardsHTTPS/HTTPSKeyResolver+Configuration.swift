import AsyncHTTPClient
import Foundation
import HTTPClientPolicy
import NIOCore
import NIOSSL

extension HTTPSKeyResolver {
    /// How an ``HTTPSKeyResolver`` fetches and caches issuer documents.
    public struct Configuration: Sendable {
        /// The longest a whole fetch may take (connection, TLS, redirects and body), 10 s by default.
        public var requestTimeout: Duration
        /// The longest establishing a connection may take, 5 s by default. Applies to the client
        /// the resolver creates; a client passed in keeps its own.
        public var connectTimeout: Duration
        /// The largest body accepted, in bytes (256 KiB by default); a larger one is an error.
        public var maximumResponseSize: Int
        /// How many redirects are followed (3 by default). Only redirects to `https` URLs are
        /// followed; any other is an error.
        public var maximumRedirects: Int
        /// How long a document is fresh when the server says nothing (`Cache-Control: max-age`
        /// or `Expires`), one hour by default.
        public var defaultFreshness: Duration
        /// A folder where fetched documents are also kept, so a later process can verify offline;
        /// nil (the default) keeps them in memory only. Created with mode 0700 when missing;
        /// files have mode 0600.
        public var cacheFolder: URL?
        /// Whether a cached copy that is stale (or must be revalidated) is used when the issuer
        /// cannot be reached: connection or TLS failure, timeout, or a 5xx answer. True by default,
        /// so cards verify offline after the first fetch; every such use is reported through
        /// ``HTTPSKeyResolver/staleCopiesUsed`` and ``onStaleCopy``.
        ///
        /// This deliberately goes beyond RFC 9111 §4.2.4, which forbids serving a stale response
        /// marked `no-cache` or `must-revalidate`: the resolver never hides the staleness, and the
        /// caller decides. Set to false to fail instead.
        public var useStaleCopiesWhenOffline: Bool
        /// Called each time a stale copy is used in place of a fetch.
        public var onStaleCopy: (@Sendable (StaleCopy) -> Void)?
        /// The `User-Agent` sent with every request.
        public var userAgent: String
        /// Whether documents may be fetched from a host that resolves to a loopback, private,
        /// link-local or otherwise non-public address. False by default: a card's `iss` is
        /// untrusted input, and the resolver resolves the issuer's host (and each redirect's) and
        /// checks every address before connecting, refusing with one reason that says nothing
        /// about the address or port. The HTTP client resolves the name again to connect, so a
        /// DNS server that answers differently the second time (rebinding) is not caught. Allow
        /// it for an issuer on your own network, or map such an issuer to a folder instead.
        public var allowsPrivateAddresses: Bool

        /// Creates a configuration; every parameter has the documented default.
        public init(
            requestTimeout: Duration = .seconds(10),
            connectTimeout: Duration = .seconds(5),
            maximumResponseSize: Int = 256 * 1024,
            maximumRedirects: Int = 3,
            defaultFreshness: Duration = .seconds(3600),
            cacheFolder: URL? = nil,
            useStaleCopiesWhenOffline: Bool = true,
            onStaleCopy: (@Sendable (StaleCopy) -> Void)? = nil,
            userAgent: String = "OpenHealthKit-SmartHealthCards",
            allowsPrivateAddresses: Bool = false
        ) {
            self.requestTimeout = requestTimeout
            self.connectTimeout = connectTimeout
            self.maximumResponseSize = maximumResponseSize
            self.maximumRedirects = maximumRedirects
            self.defaultFreshness = defaultFreshness
            self.cacheFolder = cacheFolder
            self.useStaleCopiesWhenOffline = useStaleCopiesWhenOffline
            self.onStaleCopy = onStaleCopy
            self.userAgent = userAgent
            self.allowsPrivateAddresses = allowsPrivateAddresses
        }

        /// The `HTTPClient` configuration the resolver uses for a client it creates, from the
        /// package's one HTTP client policy: full certificate and host name verification against
        /// the system trust store (or the PEM bundle `SSL_CERT_FILE` names and the folder
        /// `SSL_CERT_DIR` names, as OpenSSL's clients read them), TLS 1.2 or later (rule 5),
        /// redirects not followed by the client (the resolver follows https ones itself), no
        /// decompression, no retry of a refused connection, and the connect and read timeouts
        /// above. Use it to create a client to pass to ``HTTPSKeyResolver/init(configuration:httpClient:)``.
        public var httpClientConfiguration: HTTPClient.Configuration {
            httpClientConfiguration(additionalTrustRoots: [])
        }

        /// ``httpClientConfiguration`` trusting `roots` in addition to the system trust store.
        func httpClientConfiguration(additionalTrustRoots roots: [NIOSSLCertificate]) -> HTTPClient.Configuration {
            var policy = self.policy
            policy.additionalTrustRoots = roots
            return policy.httpClientConfiguration
        }

        /// The package's HTTP client policy with this configuration's numbers; no retries, so a
        /// refused connection fails at once (and falls back to a cached copy).
        var policy: HTTPClientPolicy {
            HTTPClientPolicy(connectTimeout: connectTimeout, requestTimeout: requestTimeout, maximumResponseSize: maximumResponseSize,
                             maximumRedirects: maximumRedirects, retries: 0)
        }

        /// ``defaultFreshness`` in seconds.
        var defaultFreshnessSeconds: TimeInterval {
            let (seconds, attoseconds) = defaultFreshness.components
            return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
        }
    }
}
