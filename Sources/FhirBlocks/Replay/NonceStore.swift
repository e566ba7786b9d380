/// Remembers single-use values until they expire. The server supplies SQLite and PostgreSQL
/// implementations; ``InMemoryNonceStore`` serves tests and single-process use.
///
/// ``insertIfAbsent(_:expiresAt:now:)`` must be atomic: of two concurrent calls with the same
/// key, exactly one returns `true`.
public protocol NonceStore: Sendable {
    /// Records `key` until `expiresAt` if it is not already recorded (or has expired by `now`).
    /// Returns `true` for the first use, `false` for a replay.
    func insertIfAbsent(_ key: NonceKey, expiresAt: Timestamp, now: Timestamp) async throws(NonceStoreError) -> Bool
}
