import FhirBlocks

/// A SMART Backend Services client (`POST /oauth/register` with `grant_types`
/// `["client_credentials"]`): its `client_id`, and the keys its client assertions are checked
/// with, given inline as a JSON Web Key Set or as the `https` URL the server fetches it from.
/// Wallets grant it as they grant any app, by its `client_id`.
public struct BackendClient: Sendable, Hashable {
    /// The `client_id`.
    public var clientID: CsiGuid
    /// `client_name`, if given.
    public var clientName: String?
    /// The JSON Web Key Set registered inline (its JSON text), or nil when ``jwksURI`` is set.
    public var jwks: String?
    /// Where the client publishes its JSON Web Key Set, or nil when ``jwks`` is set.
    public var jwksURI: String?
    /// When it registered.
    public var registeredAt: Timestamp

    /// Creates a record.
    /// - Parameters:
    ///   - clientID: the `client_id`.
    ///   - clientName: `client_name`, if given.
    ///   - jwks: the key set's JSON text, when registered inline.
    ///   - jwksURI: the key set's URL, when registered by reference.
    ///   - registeredAt: when it registered.
    public init(clientID: CsiGuid, clientName: String?, jwks: String?, jwksURI: String?, registeredAt: Timestamp) {
        self.clientID = clientID
        self.clientName = clientName
        self.jwks = jwks
        self.jwksURI = jwksURI
        self.registeredAt = registeredAt
    }
}

/// The SMART Backend Services clients' share of a ``TrustStore``. Statements are
/// ``BackendClientSQL``'s.
public protocol BackendClientStore: Sendable {
    /// Stores a new backend client while fewer than `limit` are stored;
    /// ``TrustStoreError/conflict(_:)`` when its id is taken or `limit` are stored already.
    func registerBackendClient(_ client: BackendClient, limit: Int) async throws(TrustStoreError)
    /// The backend client with this id, if any.
    func backendClient(_ clientID: CsiGuid) async throws(TrustStoreError) -> BackendClient?
}
