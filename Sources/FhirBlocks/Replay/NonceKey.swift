/// What a single-use value is unique within: a namespace, the party that used it, and the value.
///
/// SMOAC nonces are single-use per csiGuid (the same nonce from two csiGuids is two uses);
/// assertion `jti`s are single-use per issuer.
public struct NonceKey: Sendable, Hashable, CustomStringConvertible {
    /// Which kind of single-use value.
    public enum Namespace: String, Sendable, Hashable, CaseIterable {
        /// A SMOAC envelope `nonce`.
        case smoacNonce = "nonce"
        /// A JWT assertion `jti`.
        case assertionID = "jti"
    }

    /// The kind of value.
    public var namespace: Namespace
    /// The party (csiGuid or client id) the value belongs to.
    public var owner: String
    /// The value.
    public var value: String

    /// Creates a key.
    public init(namespace: Namespace, owner: String, value: String) {
        self.namespace = namespace
        self.owner = owner
        self.value = value
    }

    /// `namespace:owner:value`, for storage adapters that keep one text column.
    public var description: String { "\(namespace.rawValue):\(owner):\(value)" }
}
