import ExactJSON

/// `{"permissions": [...]}`: the answer of both permission listing endpoints.
public struct PermissionsResponse: WireMessage, Hashable {
    /// The records.
    public var permissions: [PermissionRecord]

    /// Creates a response.
    public init(permissions: [PermissionRecord]) {
        self.permissions = permissions
    }

    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: "permissions response")
        var records: [PermissionRecord] = []
        for (index, element) in try fields.array("permissions").enumerated() {
            records.append(try PermissionRecord(json: element, context: "permissions[\(index)]"))
        }
        permissions = records
    }

    public var json: JSONValue {
        .object(JSONObject(members: [JSONMember(key: "permissions", value: .array(permissions.map(\.json)))]))
    }
}
