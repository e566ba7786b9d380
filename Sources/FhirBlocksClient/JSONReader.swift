import ExactJSON

/// Typed reads of one JSON object of an answer (FHIRCore's `JSONObjectFields`), with errors that
/// name the member, never its value.
struct JSONReader {
    let fields: JSONObjectFields
    let endpoint: String
    let context: String

    init(_ value: JSONValue, endpoint: String, context: String = "body") throws(FhirBlocksClientError) {
        guard let fields = JSONObjectFields(value) else {
            throw .malformedResponse(endpoint: endpoint, reason: "\(context) is a JSON \(value.kindName), not an object")
        }
        self.fields = fields
        self.endpoint = endpoint
        self.context = context
    }

    /// Parses a body as a JSON object.
    init(body: [UInt8], endpoint: String, maximumDepth: Int = 64) throws(FhirBlocksClientError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(body, maximumDepth: maximumDepth)
        } catch {
            throw .malformedResponse(endpoint: endpoint, reason: "the body is not JSON")
        }
        try self.init(value, endpoint: endpoint)
    }

    var object: JSONObject { fields.object }

    /// The answer error for a member that could not be read.
    private func malformed(_ failure: JSONObjectFields.Failure) -> FhirBlocksClientError {
        switch failure {
        case .missing(let member): .malformedResponse(endpoint: endpoint, reason: "\(context).\(member) is missing")
        case .wrongKind(let member, let expected, _): .malformedResponse(endpoint: endpoint, reason: "\(context).\(member) is not \(expected)")
        }
    }

    func string(_ name: String) throws(FhirBlocksClientError) -> String {
        do { return try fields.string(name) } catch { throw malformed(error) }
    }

    func optionalString(_ name: String) throws(FhirBlocksClientError) -> String? {
        do { return try fields.optionalString(name) } catch { throw malformed(error) }
    }

    func integer(_ name: String) throws(FhirBlocksClientError) -> Int {
        let value: Int64
        do { value = try fields.integer(name) } catch { throw malformed(error) }
        guard let integer = Int(exactly: value) else { throw malformed(.wrongKind(member: name, expected: "an integer", found: nil)) }
        return integer
    }

    func array(_ name: String) throws(FhirBlocksClientError) -> [JSONValue] {
        do { return try fields.array(name) } catch { throw malformed(error) }
    }

    func strings(_ name: String) throws(FhirBlocksClientError) -> [String] {
        do { return try fields.stringArray(name) } catch { throw malformed(error) }
    }

    func reader(_ value: JSONValue, context: String) throws(FhirBlocksClientError) -> JSONReader {
        try JSONReader(value, endpoint: endpoint, context: "\(self.context).\(context)")
    }
}
