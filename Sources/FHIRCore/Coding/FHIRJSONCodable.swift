/// A FHIR complex value (data type, backbone element or resource) that reads itself from a JSON
/// object and writes its members back in definition order. Generated code conforms to it.
public protocol FHIRJSONCodable: Sendable, Hashable {
    /// Reads the value from the members of one JSON object.
    init(fhirObject reader: inout FHIRObjectReader) throws(FHIRDecodingError)

    /// Writes the value's members (the caller opens and closes the object).
    func encode(fhirObject writer: inout JSONWriter)
}

/// A choice element (`value[x]`): an enum with one case per allowed type.
public protocol FHIRChoice: Sendable, Hashable {
    /// The member keys of every allowed type (`valueQuantity`, `valueString`, …).
    static var variantKeys: [String] { get }
    /// `FHIRObjectReader.filter(forChoiceKeys: variantKeys)`, computed once.
    static var variantFilter: UInt64 { get }

    /// Decodes the case whose member key is `variantKeys[variant]`, or nil if `variant` is not an
    /// index of `variantKeys`. (Generated code switches on the index: no key is made as a `String`
    /// or compared as one.)
    static func decode(from reader: inout FHIRObjectReader, variant: Int) throws(FHIRDecodingError) -> Self?

    /// Writes the one member (`"valueQuantity": {…}`) and its `_` companion if any.
    func encode(fhirObject writer: inout JSONWriter)
}

extension FHIRChoice {
    /// Decodes the case named by `key` (`valueQuantity`), or nil if `key` names no allowed type.
    public static func decode(from reader: inout FHIRObjectReader, key: String) throws(FHIRDecodingError) -> Self? {
        guard let variant = variantKeys.firstIndex(of: key) else { return nil }
        return try decode(from: &reader, variant: variant)
    }
}

extension FHIRJSONCodable {
    /// Decodes a value from a JSON tree.
    public init(fhirJSON value: JSONValue, options: FHIRDecodingOptions = .strict) throws(FHIRDecodingError) {
        guard case .object = value else {
            throw FHIRDecodingError(reason: .wrongJSONType(expected: "object", found: value.kindName))
        }
        try self.init(fhirJSON: JSONWriter.serialize(value), options: options)
    }

    /// Parses and decodes FHIR JSON text.
    public init(fhirJSON bytes: [UInt8], options: FHIRDecodingOptions = .strict) throws(FHIRDecodingError) {
        let tape: JSONTape
        do {
            tape = try JSONTape(bytes, maximumDepth: options.maximumDepth)
        } catch {
            throw FHIRDecodingError(reason: .invalidJSON(error))
        }
        try self.init(fhirJSON: tape, options: options)
    }

    /// Decodes the top-level object of a parsed document.
    public init(fhirJSON tape: JSONTape, options: FHIRDecodingOptions = .strict) throws(FHIRDecodingError) {
        guard tape.nodes[0].kind == .object else {
            throw FHIRDecodingError(reason: .wrongJSONType(expected: "object", found: tape.kindName(at: 0)))
        }
        var reader = FHIRObjectReader(tape: tape, node: 0, options: options)
        try self.init(fhirObject: &reader)
    }

    /// Parses and decodes FHIR JSON text.
    public init(fhirJSON text: String, options: FHIRDecodingOptions = .strict) throws(FHIRDecodingError) {
        try self.init(fhirJSON: Array(text.utf8), options: options)
    }

    /// The value as FHIR JSON bytes.
    public func fhirJSONBytes(style: JSONWriter.Style = .compact) -> [UInt8] {
        var writer = JSONWriter(style: style)
        writer.beginObject()
        encode(fhirObject: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// The value as FHIR JSON text.
    public func fhirJSONString(style: JSONWriter.Style = .compact) -> String {
        String(decoding: fhirJSONBytes(style: style), as: UTF8.self)
    }

    /// The value as a JSON tree.
    public var fhirJSONValue: JSONValue {
        // The writer's output is always valid JSON, so parsing it back cannot fail.
        (try? JSONParser.parse(fhirJSONBytes())) ?? .null
    }
}
