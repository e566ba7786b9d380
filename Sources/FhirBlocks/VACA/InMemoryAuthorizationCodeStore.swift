/// An ``AuthorizationCodeStore`` in memory.
public actor InMemoryAuthorizationCodeStore: AuthorizationCodeStore {
    private var codes: [String: AuthorizationCode] = [:]

    /// Creates an empty store.
    public init() {}

    public func put(_ code: AuthorizationCode) async throws(NonceStoreError) {
        codes[code.code] = code
    }

    public func take(_ code: String) async throws(NonceStoreError) -> AuthorizationCode? {
        codes.removeValue(forKey: code)
    }
}
