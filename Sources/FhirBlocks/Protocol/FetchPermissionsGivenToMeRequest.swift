import ExactJSON

/// `POST permission/fetchPermissionsGivenToMe`: the permissions granted to the caller.
/// The body is the bare envelope.
public struct FetchPermissionsGivenToMeRequest: SignedRequest, Hashable {
    public var envelope: SMOACEnvelope

    public var endpoint: SMOACEndpoint { .fetchPermissionsGivenToMe }

    /// Creates a request.
    public init(envelope: SMOACEnvelope) {
        self.envelope = envelope
    }

    /// Reads the body.
    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: SMOACEndpoint.fetchPermissionsGivenToMe.path)
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
