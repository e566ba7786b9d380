import ExactJSON

/// `POST permission/deletePermission` (§1.4): revokes every grant from the caller to one grantee.
public struct DeletePermissionRequest: SignedRequest, Hashable {
    public var envelope: SMOACEnvelope
    /// The grantee whose permissions are revoked.
    public var permissionedGuidBeingDeleted: String

    public var endpoint: SMOACEndpoint { .deletePermission }

    /// Creates a request.
    public init(envelope: SMOACEnvelope, permissionedGuidBeingDeleted: String) {
        self.envelope = envelope
        self.permissionedGuidBeingDeleted = permissionedGuidBeingDeleted
    }

    /// Reads the body.
    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: SMOACEndpoint.deletePermission.path)
        envelope = try SMOACEnvelope(fields: fields, cipherField: .cipher)
        permissionedGuidBeingDeleted = try fields.string("permissionedGuidBeingDeleted")
        guard CsiGuid(permissionedGuidBeingDeleted) != nil else {
            throw .malformedRequest("\(fields.context): \"permissionedGuidBeingDeleted\" is not a 36-character UUID")
        }
    }

    /// The grantee as a typed identifier.
    public var grantee: CsiGuid? { CsiGuid(permissionedGuidBeingDeleted) }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("cipher", envelope.cipher)
        object.append("csiGuid", envelope.csiGuid)
        object.append("dateTime", envelope.dateTime)
        object.append("nonce", envelope.nonce)
        object.append("permissionedGuidBeingDeleted", permissionedGuidBeingDeleted)
        object.append("signature", envelope.signature)
        return Self.sortedObject(object)
    }

    public func shapeQuirks(mode: ProtocolMode) throws(SMOACError) -> [CompatQuirk] { [] }
}
