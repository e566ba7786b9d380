import ExactJSON

/// `permission/deletePermission` → `{"revokedPermissionIds": [...]}`. The legacy clients ignore
/// the body; its shape is this server's choice.
public struct DeletePermissionResponse: WireMessage, Hashable {
    /// The identifiers of the permissions revoked by this call.
    public var revokedPermissionIds: [String]

    /// Creates a response.
    public init(revokedPermissionIds: [String]) {
        self.revokedPermissionIds = revokedPermissionIds
    }

    public init(json: JSONValue) throws(SMOACError) {
        revokedPermissionIds = try JSONFields(json, context: SMOACEndpoint.deletePermission.path).stringArray("revokedPermissionIds")
    }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("revokedPermissionIds", strings: revokedPermissionIds)
        return .object(object)
    }
}
