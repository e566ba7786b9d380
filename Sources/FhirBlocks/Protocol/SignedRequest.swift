import ExactJSON

/// A signed `csi/*` or `permission/*` request body (§1.3): the envelope plus the endpoint's own
/// members, from which the signed payload is rebuilt.
public protocol SignedRequest: WireMessage {
    /// The endpoint the body belongs to.
    var endpoint: SMOACEndpoint { get }
    /// The envelope members.
    var envelope: SMOACEnvelope { get set }
    /// The legacy shapes this body uses that only ``ProtocolMode/compat`` accepts. Throws
    /// `malformedRequest` when the body is not acceptable in `mode`.
    func shapeQuirks(mode: ProtocolMode) throws(SMOACError) -> [CompatQuirk]
    /// The payload strings the signature may cover in `mode`, most preferred first.
    func signedPayloads(mode: ProtocolMode) -> [SignedPayload]
}

extension SignedRequest {
    /// Members written in the order the legacy clients' serializer produced them (sorted by name).
    static func sortedObject(_ object: JSONObject) -> JSONValue {
        .object(JSONObject(members: object.members.sorted { $0.key < $1.key }))
    }

    /// Rejects a `|` inside a signed member: the payload has no escaping, so a pipe inside a
    /// value could move field boundaries.
    static func rejectPipes(_ values: [(String, String)], context: String) throws(SMOACError) {
        for (name, value) in values where value.utf8.contains(UInt8(ascii: "|")) {
            throw .malformedRequest("\(context): \"\(name)\" may not contain '|'")
        }
    }
}
