import FhirBlocks

/// The tokens' share of a ``TrustStore``: access tokens by hash, and SMART App Launch — its
/// registered public clients, the authorizations waiting for or granted by the wallet, and
/// refresh tokens with their single use. They are written through ``LedgerStore/commit(_:)``.
public protocol TokenStore: Sendable {
    // MARK: Tokens

    /// The token whose SHA-256 is `hash` (`AccessToken.hash(of:)`), if any.
    func token(hash: String) async throws(TrustStoreError) -> StoredAccessToken?

    // MARK: SMART app launch

    /// The SMART public client with this `client_id`, if registered.
    func smartClient(_ clientID: CsiGuid) async throws(TrustStoreError) -> SmartClient?
    /// The SMART clients, at most `limit` of them (the first registered).
    func smartClients(limit: Int) async throws(TrustStoreError) -> [SmartClient]
    /// How many SMART public clients are registered.
    func smartClientCount() async throws(TrustStoreError) -> Int
    /// The SMART authorization with this id (the hash of its request), if kept.
    func smartAuthorization(id: String) async throws(TrustStoreError) -> SmartAuthorization?
    /// The SMART authorization a user code names, if kept.
    func smartAuthorization(userCode: String) async throws(TrustStoreError) -> SmartAuthorization?
    /// The SMART authorization whose code has this SHA-256, if kept.
    func smartAuthorization(codeHash: String) async throws(TrustStoreError) -> SmartAuthorization?
    /// Marks the refresh token whose SHA-256 is `hash` used and returns it as it was before
    /// (``StoredRefreshToken/used`` false for the one caller that rotated it), or nil if unknown.
    func useRefreshToken(hash: String) async throws(TrustStoreError) -> StoredRefreshToken?
    /// The refresh token whose SHA-256 is `hash`, if kept, without using it (RFC 7009
    /// revocation reads it to find its family).
    func refreshToken(hash: String) async throws(TrustStoreError) -> StoredRefreshToken?
}
