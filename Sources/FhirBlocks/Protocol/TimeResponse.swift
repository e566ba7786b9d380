import ExactJSON

/// `GET util/getTime` → `{"currentTime": "2018-01-12T17:03:21.123Z"}`.
public struct TimeResponse: WireMessage, Hashable {
    /// The server time in the wire format.
    public var currentTime: String

    /// Creates a response for a timestamp.
    public init(currentTime: Timestamp) {
        self.currentTime = currentTime.wireText
    }

    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: SMOACEndpoint.getTime.path)
        currentTime = try fields.string("currentTime")
        guard Timestamp(wireText: currentTime) != nil else {
            throw .malformedRequest("\(fields.context): \"currentTime\" is not yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
        }
    }

    /// The server time.
    public var timestamp: Timestamp? { Timestamp(wireText: currentTime) }

    public var json: JSONValue { .object(JSONObject(members: [JSONMember(key: "currentTime", value: .string(currentTime))])) }
}
