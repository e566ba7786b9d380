/// A ``NonceStore`` in memory. Expired entries are dropped lazily as time (the `now` passed in)
/// moves on.
public actor InMemoryNonceStore: NonceStore {
    private var entries: [NonceKey: Timestamp] = [:]
    private var lastPurge = Timestamp(millisecondsSince1970: Int64.min)

    /// Creates an empty store.
    public init() {}

    public func insertIfAbsent(_ key: NonceKey, expiresAt: Timestamp, now: Timestamp) async throws(NonceStoreError) -> Bool {
        if now.milliseconds(since: lastPurge) > 60_000 {
            entries = entries.filter { $0.value > now }
            lastPurge = now
        }
        if let existing = entries[key], existing > now { return false }
        entries[key] = expiresAt
        return true
    }

    /// How many unexpired entries are held at `now`.
    public func count(at now: Timestamp) -> Int {
        entries.values.filter { $0 > now }.count
    }
}
