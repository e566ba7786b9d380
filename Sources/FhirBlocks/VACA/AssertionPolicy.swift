/// The checks an assertion must pass (§1.6, §2.2).
public struct AssertionPolicy: Sendable, Hashable {
    /// Accepted `aud` values (for example `https://fb.example/vaca/auth`); one must appear.
    public var audiences: Set<String>
    /// The longest lifetime: `exp − iat` and `exp − now` may not exceed it (300 s).
    public var maximumLifetimeSeconds: Int64
    /// Tolerated clock difference.
    public var clockSkewSeconds: Int64

    /// Creates a policy (lifetime capped at 300 s).
    public init(audiences: Set<String>, maximumLifetimeSeconds: Int64 = 300, clockSkewSeconds: Int64 = 60) {
        self.audiences = audiences
        self.maximumLifetimeSeconds = min(max(1, maximumLifetimeSeconds), 300)
        self.clockSkewSeconds = max(0, clockSkewSeconds)
    }
}
