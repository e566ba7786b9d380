/// The key that signs a log's checkpoints: its signed-note key name and P-256 public key.
public struct AuditLogKey: Sendable, Hashable {
    /// The key name on the checkpoints' signature lines.
    public var keyName: String
    /// The public key.
    public var publicKey: CsiPublicKey

    /// Creates a key.
    public init(keyName: String, publicKey: CsiPublicKey) {
        self.keyName = keyName
        self.publicKey = publicKey
    }
}
