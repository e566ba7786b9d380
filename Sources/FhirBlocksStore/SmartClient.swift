import FhirBlocks

/// A SMART public client registered through RFC 7591 dynamic registration: its `client_id`
/// (a random UUID, so a permission can name it as its grantee like any csi), the redirect URIs
/// `/authorize` compares exactly, and its name.
public struct SmartClient: Sendable, Hashable {
    /// The `client_id`.
    public var clientID: CsiGuid
    /// The registered redirect URIs.
    public var redirectURIs: [String]
    /// `client_name`, if given.
    public var clientName: String?
    /// When it registered.
    public var registeredAt: Timestamp

    /// Creates a record.
    public init(clientID: CsiGuid, redirectURIs: [String], clientName: String?, registeredAt: Timestamp) {
        self.clientID = clientID
        self.redirectURIs = redirectURIs
        self.clientName = clientName
        self.registeredAt = registeredAt
    }
}
