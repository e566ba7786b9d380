/// A nonce store could not answer (storage adapters wrap their own errors in this).
public struct NonceStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed, without the nonce itself.
    public var reason: String

    /// Creates an error.
    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { "nonce store: \(reason)" }
}
