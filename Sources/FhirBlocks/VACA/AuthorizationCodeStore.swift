/// Holds issued codes until they are redeemed. ``take(_:)`` removes the code atomically, so a
/// code is redeemed at most once even under concurrent requests.
public protocol AuthorizationCodeStore: Sendable {
    /// Stores a code.
    func put(_ code: AuthorizationCode) async throws(NonceStoreError)
    /// Removes and returns the code, or nil if it is unknown or was already taken.
    func take(_ code: String) async throws(NonceStoreError) -> AuthorizationCode?
}
