import ExactJSON

/// A request or response body of the SMOAC protocol, read from and written to JSON with the
/// exact member names of the doc's catalogue (§1.4).
public protocol WireMessage: Sendable {
    /// Reads the message from a parsed JSON value.
    init(json: JSONValue) throws(SMOACError)
    /// The message as JSON, members in the catalogue's order.
    var json: JSONValue { get }
}

extension WireMessage {
    /// The deepest nesting any SMOAC body needs (the writePermission body is three levels deep).
    public static var maximumJSONDepth: Int { 16 }

    /// Parses UTF-8 JSON bytes into the message; any JSON syntax error is `malformedRequest`.
    public init(jsonBytes: [UInt8]) throws(SMOACError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(jsonBytes, maximumDepth: Self.maximumJSONDepth)
        } catch {
            throw .malformedRequest("body is not JSON: \(error)")
        }
        try self.init(json: value)
    }

    /// The message as compact UTF-8 JSON.
    public var jsonBytes: [UInt8] { JSONWriter.serialize(json) }

    /// The message as compact JSON text.
    public var jsonText: String { String(decoding: jsonBytes, as: UTF8.self) }
}
