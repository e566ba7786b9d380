import ExactJSON

/// `POST permission/writePermission` (§1.4): the caller grants each grantee a time-bounded,
/// HEART-scoped permission.
public struct WritePermissionRequest: SignedRequest, Hashable {
    public var envelope: SMOACEnvelope
    /// The grant.
    public var permission: PermissionGrantBody

    public var endpoint: SMOACEndpoint { .writePermission }

    /// Creates a request.
    public init(envelope: SMOACEnvelope, permission: PermissionGrantBody) {
        self.envelope = envelope
        self.permission = permission
    }

    /// Reads the body.
    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: SMOACEndpoint.writePermission.path)
        envelope = try SMOACEnvelope(fields: fields, cipherField: .cipher)
        permission = try PermissionGrantBody(fields: try fields.fields("permission"))
    }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("cipher", envelope.cipher)
        object.append("csiGuid", envelope.csiGuid)
        object.append("dateTime", envelope.dateTime)
        object.append("nonce", envelope.nonce)
        object.append("permission", permission.json)
        object.append("signature", envelope.signature)
        return Self.sortedObject(object)
    }

    /// Strict mode needs the array form and a signed `accessType`; compat accepts the single
    /// string form and an absent (or unsigned) `accessType`.
    public func shapeQuirks(mode: ProtocolMode) throws(SMOACError) -> [CompatQuirk] {
        var quirks: [CompatQuirk] = []
        if permission.permissionedCsiGuids == nil {
            guard mode == .compat else {
                throw .malformedRequest("\(endpoint.path): strict mode needs \"permissionedCsiGuids\" (array)")
            }
            quirks.append(.singleGranteeField)
        }
        if permission.heartScope.accessType == nil && mode == .strict {
            throw .malformedRequest("\(endpoint.path): strict mode needs \"heartScope.accessType\"")
        }
        return quirks
    }
}
