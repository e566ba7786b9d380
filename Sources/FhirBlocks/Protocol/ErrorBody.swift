import ExactJSON

/// The JSON body of every error response: `{"error": "<code>", "error_description": "…"}`.
public struct ErrorBody: WireMessage, Hashable {
    /// The machine-readable code (`invalid_request`, `invalid_signature`, …).
    public var error: String
    /// A human-readable description without patient data.
    public var errorDescription: String

    /// Creates an error body.
    public init(error: String, errorDescription: String) {
        self.error = error
        self.errorDescription = errorDescription
    }

    /// Reads an error body.
    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: "error")
        error = try fields.string("error")
        errorDescription = try fields.optionalString("error_description") ?? ""
    }

    /// The body as JSON.
    public var json: JSONValue {
        var object = JSONObject()
        object.append("error", error)
        object.append("error_description", errorDescription)
        return .object(object)
    }
}
