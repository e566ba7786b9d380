import ExactJSON

/// `GET util/ping` → `{"version": "<semver>", "name": "fhirblocks-smoac"}` (shape proposed in
/// §1.4; the legacy clients only log it).
public struct PingResponse: WireMessage, Hashable {
    /// The server version.
    public var version: String
    /// The server name.
    public var name: String

    /// Creates a response.
    public init(version: String, name: String = "fhirblocks-smoac") {
        self.version = version
        self.name = name
    }

    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: SMOACEndpoint.ping.path)
        version = try fields.string("version")
        name = try fields.optionalString("name") ?? ""
    }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("version", version)
        object.append("name", name)
        return .object(object)
    }
}
