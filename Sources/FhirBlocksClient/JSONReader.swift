import FHIRCore

/// Typed reads of one JSON object of an answer, with errors that name the member, never its value.
struct JSONReader {
    let object: JSONObject
    let endpoint: String
    let context: String

    init(_ value: JSONValue, endpoint: String, context: String = "body") throws(FhirBlocksClientError) {
        guard let object = value.objectValue else {
            throw .malformedResponse(endpoint: endpoint, reason: "\(context) is a JSON \(value.kindName), not an object")
        }
        self.object = object
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

    private func fail(_ name: String, _ what: String) -> FhirBlocksClientError {
        .malformedResponse(endpoint: endpoint, reason: "\(context).\(name) \(what)")
    }

    func string(_ name: String) throws(FhirBlocksClientError) -> String {
        guard let value = object[name] else { throw fail(name, "is missing") }
        guard let text = value.stringValue else { throw fail(name, "is not a string") }
        return text
    }

    func optionalString(_ name: String) throws(FhirBlocksClientError) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let text = value.stringValue else { throw fail(name, "is not a string") }
        return text
    }

    func integer(_ name: String) throws(FhirBlocksClientError) -> Int {
        guard let value = object[name] else { throw fail(name, "is missing") }
        guard case .number(let text) = value, let number = Int(text) else { throw fail(name, "is not an integer") }
        return number
    }

    func array(_ name: String) throws(FhirBlocksClientError) -> [JSONValue] {
        guard let value = object[name] else { throw fail(name, "is missing") }
        guard let array = value.arrayValue else { throw fail(name, "is not an array") }
        return array
    }

    func strings(_ name: String) throws(FhirBlocksClientError) -> [String] {
        var result: [String] = []
        for (index, element) in try array(name).enumerated() {
            guard let text = element.stringValue else { throw fail("\(name)[\(index)]", "is not a string") }
            result.append(text)
        }
        return result
    }

    func reader(_ value: JSONValue, context: String) throws(FhirBlocksClientError) -> JSONReader {
        try JSONReader(value, endpoint: endpoint, context: "\(self.context).\(context)")
    }
}
