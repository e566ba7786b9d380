import ExactJSON

/// `POST permission/fetchPermissionsPreviouslyGrantedByMe` (README: `fetchPermissionsGivenByMe`): the permissions the caller granted.
/// The body is the bare envelope.
public struct FetchPermissionsGrantedByMeRequest: SignedRequest, Hashable {
    public var envelope: SMOACEnvelope

    public var endpoint: SMOACEndpoint { .fetchPermissionsPreviouslyGrantedByMe }

    /// Creates a request.
    public init(envelope: SMOACEnvelope) {
        self.envelope = envelope
    }

    /// Reads the body.
    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: SMOACEndpoint.fetchPermissionsPreviouslyGrantedByMe.path)
        envelope = try SMOACEnvelope(fields: fields, cipherField: .cipher)
    }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("cipher", envelope.cipher)
        object.append("csiGuid", envelope.csiGuid)
        object.append("dateTime", envelope.dateTime)
        object.append("nonce", envelope.nonce)
        object.append("signature", envelope.signature)
        return Self.sortedObject(object)
    }

    public func shapeQuirks(mode: ProtocolMode) throws(SMOACError) -> [CompatQuirk] { [] }
}
