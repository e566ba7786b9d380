/// Checks the freshness of a signed SMOAC request (§1.6): `dateTime` within the window of the
/// server clock (passed in), and the nonce single-use per csiGuid through a ``NonceStore``.
///
/// Call it after the signature has verified, so unauthenticated requests cannot fill the store.
public struct ReplayGuard: Sendable {
    /// The rules.
    public var policy: ReplayPolicy

    /// Creates a guard.
    public init(policy: ReplayPolicy = .default) {
        self.policy = policy
    }

    /// Rejects a `dateTime` further than the window from `now`, either direction
    /// (`staleDateTime`), or not in the wire format (`malformedRequest`).
    public func checkDateTime(_ dateTime: String, now: Timestamp) throws(SMOACError) {
        guard let sent = Timestamp(wireText: dateTime) else {
            throw .malformedRequest("\"dateTime\" is not yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
        }
        let skew = sent.milliseconds(since: now)
        let limit = policy.windowSeconds.multipliedReportingOverflow(by: 1000).partialValue
        if skew > limit || skew < -limit {
            throw .staleDateTime(skewSeconds: skew / 1000)
        }
    }

    /// Checks `dateTime` and consumes `nonce` for `csiGuid`. A nonce seen before from the same
    /// csiGuid is `replayedNonce`; the same nonce from another csiGuid is a different key.
    public func check(csiGuid: CsiGuid, dateTime: String, nonce: String, now: Timestamp, store: some NonceStore) async throws(SMOACError) {
        try checkDateTime(dateTime, now: now)
        guard ProtocolNonce.isValid(nonce) else {
            throw .malformedRequest("\"nonce\" must be 16-64 characters of [A-Za-z0-9-]")
        }
        let key = NonceKey(namespace: .smoacNonce, owner: csiGuid.rawValue, value: nonce)
        let fresh: Bool
        do {
            fresh = try await store.insertIfAbsent(key, expiresAt: now.adding(seconds: policy.nonceLifetimeSeconds), now: now)
        } catch {
            throw .storageFailure(error.description)
        }
        guard fresh else { throw .replayedNonce }
    }

    /// Checks the envelope of a signed request.
    public func check(_ request: some SignedRequest, now: Timestamp, store: some NonceStore) async throws(SMOACError) {
        guard let caller = request.envelope.caller else { throw .malformedRequest("\"csiGuid\" is not a 36-character UUID") }
        try await check(csiGuid: caller, dateTime: request.envelope.dateTime, nonce: request.envelope.nonce, now: now, store: store)
    }
}
