import FhirBlocks

/// A SMART client registered through RFC 7591 dynamic registration: its `client_id` (a random
/// UUID, so a permission can name it as its grantee like any csi), the redirect URIs
/// `/authorize` compares exactly, its name, and for a confidential client (`private_key_jwt`)
/// the key its client assertions are signed with.
public struct SmartClient: Sendable, Hashable {
    /// The `client_id`.
    public var clientID: CsiGuid
    /// The registered redirect URIs.
    public var redirectURIs: [String]
    /// `client_name`, if given.
    public var clientName: String?
    /// When it registered.
    public var registeredAt: Timestamp
    /// The assertion key of a confidential client; nil for a public client.
    public var publicKey: CsiPublicKey?

    /// Creates a record.
    public init(clientID: CsiGuid, redirectURIs: [String], clientName: String?, registeredAt: Timestamp, publicKey: CsiPublicKey? = nil) {
        self.publicKey = publicKey
        self.clientID = clientID
        self.redirectURIs = redirectURIs
        self.clientName = clientName
        self.registeredAt = registeredAt
    }
}
