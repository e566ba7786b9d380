/// The endpoints of the SMOAC catalogue (§1.4), by their path below the server base.
public enum SMOACEndpoint: String, CaseIterable, Sendable, Hashable {
    case ping = "util/ping"
    case getTime = "util/getTime"
    case getGloballyUniqueIdentifier = "util/getGloballyUniqueIdentifier"
    case requestCsiRegistration = "csi/requestCsiRegistration"
    case fetchPublicClaims = "csi/fetchPublicClaims"
    case writePermission = "permission/writePermission"
    case fetchPermissionsPreviouslyGrantedByMe = "permission/fetchPermissionsPreviouslyGrantedByMe"
    case fetchPermissionsGivenToMe = "permission/fetchPermissionsGivenToMe"
    case deletePermission = "permission/deletePermission"
    /// A wallet approves or declines an app's SMART `/authorize` request by its user code
    /// (this server's addition; strict payload only).
    case decideAuthorization = "permission/decideAuthorization"
    case vacaAuth = "vaca/auth"
    case vacaAccess = "vaca/access"

    /// The README's name for ``fetchPermissionsPreviouslyGrantedByMe`` (§1.10 item 4).
    public static let givenByMeAliasPath = "permission/fetchPermissionsGivenByMe"

    /// The path below the server base, for example `csi/requestCsiRegistration`.
    public var path: String { rawValue }

    /// The HTTP method the endpoint is served with.
    public var method: String {
        switch self {
        case .ping, .getTime, .getGloballyUniqueIdentifier: "GET"
        default: "POST"
        }
    }

    /// The request media type (`nil` for bodiless GETs).
    public var requestContentType: String? {
        switch self {
        case .ping, .getTime, .getGloballyUniqueIdentifier: nil
        case .vacaAuth, .vacaAccess: "application/x-www-form-urlencoded"
        default: "application/json"
        }
    }

    /// Whether the body carries a signed envelope (§1.3).
    public var isSignedEnvelope: Bool {
        switch self {
        case .requestCsiRegistration, .fetchPublicClaims, .writePermission,
             .fetchPermissionsPreviouslyGrantedByMe, .fetchPermissionsGivenToMe, .deletePermission, .decideAuthorization: true
        default: false
        }
    }

    /// Finds the endpoint for a path (a leading `/` is ignored). The README alias
    /// `fetchPermissionsGivenByMe` is served only in compat mode, reported as
    /// ``CompatQuirk/givenByMeAlias``.
    public static func resolve(path: String, mode: ProtocolMode) -> Accepted<SMOACEndpoint>? {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        if let endpoint = SMOACEndpoint(rawValue: trimmed) { return Accepted(endpoint) }
        if trimmed == givenByMeAliasPath, mode == .compat {
            return Accepted(.fetchPermissionsPreviouslyGrantedByMe, quirks: [.givenByMeAlias])
        }
        return nil
    }

    /// Whether the method may be used: the catalogue's method, and in compat mode also POST on
    /// the `util/*` GET endpoints (§1.10 item 1, ``CompatQuirk/postOnGetEndpoint``).
    public func accepts(method: String, mode: ProtocolMode) -> Accepted<Bool> {
        let upper = method.uppercased()
        if upper == self.method { return Accepted(true) }
        if mode == .compat, self.method == "GET", upper == "POST" { return Accepted(true, quirks: [.postOnGetEndpoint]) }
        return Accepted(false)
    }
}
