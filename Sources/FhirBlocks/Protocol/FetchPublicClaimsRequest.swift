import ExactJSON

/// `POST csi/fetchPublicClaims` (§1.4): read another csi's public claims.
public struct FetchPublicClaimsRequest: SignedRequest, Hashable {
    public var envelope: SMOACEnvelope
    /// The csiGuid whose claims are wanted (the wallet, `wcsi`).
    public var desiredCsiGuid: String

    public var endpoint: SMOACEndpoint { .fetchPublicClaims }

    /// Creates a request.
    public init(envelope: SMOACEnvelope, desiredCsiGuid: String) {
        self.envelope = envelope
        self.desiredCsiGuid = desiredCsiGuid
    }

    /// Reads the body.
    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: SMOACEndpoint.fetchPublicClaims.path)
        envelope = try SMOACEnvelope(fields: fields, cipherField: .cipher)
        desiredCsiGuid = try fields.string("desiredCsiGuid")
        guard CsiGuid(desiredCsiGuid) != nil else {
            throw .malformedRequest("\(fields.context): \"desiredCsiGuid\" is not a 36-character UUID")
        }
    }

    /// The target as a typed identifier.
    public var target: CsiGuid? { CsiGuid(desiredCsiGuid) }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("cipher", envelope.cipher)
        object.append("csiGuid", envelope.csiGuid)
        object.append("dateTime", envelope.dateTime)
        object.append("desiredCsiGuid", desiredCsiGuid)
        object.append("nonce", envelope.nonce)
        object.append("signature", envelope.signature)
        return Self.sortedObject(object)
    }

    public func shapeQuirks(mode: ProtocolMode) throws(SMOACError) -> [CompatQuirk] { [] }
}
