/// The freshness rules of §1.6.
public struct ReplayPolicy: Sendable, Hashable {
    /// How far `dateTime` may be from the server's clock, either way (default 300 s).
    public var windowSeconds: Int64

    /// Creates a policy.
    public init(windowSeconds: Int64 = 300) {
        self.windowSeconds = max(0, windowSeconds)
    }

    /// The default policy: ±300 s.
    public static let `default` = ReplayPolicy()

    /// How long a nonce is remembered after `now`: twice the window, so a nonce cannot be
    /// replayed while any `dateTime` that accompanied it is still acceptable.
    public var nonceLifetimeSeconds: Int64 { windowSeconds.multipliedReportingOverflow(by: 2).overflow ? .max : windowSeconds * 2 }
}
