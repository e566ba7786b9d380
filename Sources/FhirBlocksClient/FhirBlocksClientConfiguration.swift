import FhirBlocks

/// Limits and choices of a ``FhirBlocksClient``.
public struct FhirBlocksClientConfiguration: Sendable, Hashable {
    /// The longest a whole exchange (connect, send, receive the body) may take.
    public var requestTimeout: Duration
    /// The longest connection setup.
    public var connectTimeout: Duration
    /// The largest answer body read, in bytes; a larger one is ``FhirBlocksClientError/responseTooLarge(endpoint:limit:)``.
    public var maximumResponseSize: Int
    /// How signed SMOAC requests are signed (`.strict` against a strict server; `.legacy` only
    /// to imitate the 2017–2018 clients against a `--mode compat` server).
    public var signingStyle: RequestSigner.Style
    /// Lifetime of the client assertions this client builds, in seconds (1–300).
    public var assertionLifetimeSeconds: Int64
    /// The `User-Agent` header.
    public var userAgent: String

    /// Creates a configuration: 30 s per request, 10 s to connect, 8 MiB answers, strict
    /// signatures, 120 s assertions.
    public init(requestTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10),
                maximumResponseSize: Int = 8 << 20, signingStyle: RequestSigner.Style = .strict,
                assertionLifetimeSeconds: Int64 = 120, userAgent: String = "OpenHealthKit-FhirBlocksClient/1") {
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.maximumResponseSize = max(0, maximumResponseSize)
        self.signingStyle = signingStyle
        self.assertionLifetimeSeconds = min(max(1, assertionLifetimeSeconds), 300)
        self.userAgent = userAgent
    }
}
