import ExactJSON

/// The answer to `permission/decideAuthorization`: `approved` with the granted scope, the
/// window's end and the permission ids, or `declined`.
public struct AuthorizationDecisionResponse: WireMessage, Hashable {
    /// `approved` or `declined`.
    public var status: String
    /// The granted scope (empty when declined).
    public var scope: String
    /// The end of the granted window (empty when declined).
    public var endTime: String
    /// The permissions written (empty when declined).
    public var permissionIds: [String]

    /// Creates a response.
    public init(status: String, scope: String = "", endTime: String = "", permissionIds: [String] = []) {
        self.status = status
        self.scope = scope
        self.endTime = endTime
        self.permissionIds = permissionIds
    }

    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: "decideAuthorization response")
        status = try fields.string("status")
        scope = try fields.optionalString("scope") ?? ""
        endTime = try fields.optionalString("endTime") ?? ""
        permissionIds = try fields.optionalStringArray("permissionIds") ?? []
    }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("status", status)
        if !scope.isEmpty { object.append("scope", scope) }
        if !endTime.isEmpty { object.append("endTime", endTime) }
        if !permissionIds.isEmpty { object.append("permissionIds", strings: permissionIds) }
        return .object(object)
    }
}
