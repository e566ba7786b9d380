import ExactJSON

/// `{"guid": "<uuid>"}`: the answer of `util/getGloballyUniqueIdentifier` and of
/// `csi/requestCsiRegistration` (whose `guid` the app stores as `dcsi`).
public struct GuidResponse: WireMessage, Hashable {
    /// The GUID.
    public var guid: String

    /// Creates a response.
    public init(guid: CsiGuid) {
        self.guid = guid.rawValue
    }

    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: "guid response")
        guid = try fields.string("guid")
        guard CsiGuid(guid) != nil else { throw .malformedRequest("guid response: \"guid\" is not a 36-character UUID") }
    }

    public var json: JSONValue { .object(JSONObject(members: [JSONMember(key: "guid", value: .string(guid))])) }
}
