/// The result of requested ∩ held (§2.5): the grants a code or token carries, and the scope
/// string returned to the client.
public struct GrantedScope: Sendable, Hashable {
    /// The grants, each inside one held permission.
    public var grants: [PermissionScope]
    /// The scopes granted, as returned to the client.
    public var scopes: [SmartScope]
    /// Requested scopes that were not granted (not held, unsupported or malformed), verbatim.
    public var dropped: [String]

    /// Creates a result.
    public init(grants: [PermissionScope], scopes: [SmartScope], dropped: [String]) {
        self.grants = grants
        self.scopes = scopes
        self.dropped = dropped
    }

    /// Whether nothing was granted (the endpoint answers `invalid_scope`).
    public var isEmpty: Bool { grants.isEmpty }

    /// The space-separated scope string.
    public var text: String { scopes.map(\.description).joined(separator: " ") }
}
