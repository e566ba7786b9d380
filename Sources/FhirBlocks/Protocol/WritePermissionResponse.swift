import ExactJSON

/// `permission/writePermission` → `{"permissionIds": [...]}` (one per grantee and patient).
/// The legacy clients ignore the body; its shape is this server's choice.
public struct WritePermissionResponse: WireMessage, Hashable {
    /// The identifiers of the permissions created.
    public var permissionIds: [String]

    /// Creates a response.
    public init(permissionIds: [String]) {
        self.permissionIds = permissionIds
    }

    public init(json: JSONValue) throws(SMOACError) {
        permissionIds = try JSONFields(json, context: SMOACEndpoint.writePermission.path).stringArray("permissionIds")
    }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("permissionIds", strings: permissionIds)
        return .object(object)
    }
}
