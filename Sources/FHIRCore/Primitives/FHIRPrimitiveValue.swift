/// The value inside a FHIR primitive element (`FHIRString`, `FHIRDecimal`, `DateTime`, a code enum…).
///
/// A primitive value converts to and from exactly one JSON scalar, losslessly: decoding and then
/// encoding gives back the same JSON text.
public protocol FHIRPrimitiveValue: Sendable, Hashable, CustomStringConvertible {
    /// Decodes the value from its JSON scalar.
    /// - Throws: ``FHIRPrimitiveError`` when the JSON kind or the lexical form is wrong.
    init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError)

    /// Decodes the value from the JSON scalar at `node` of a parsed document. The default goes
    /// through `JSONValue`; types parsed from their bytes (dates and times) read them in place.
    init(fhirJSON tape: borrowing JSONTape, node: Int) throws(FHIRPrimitiveError)

    /// The JSON scalar this value encodes to.
    var fhirJSON: JSONValue { get }
}

extension FHIRPrimitiveValue {
    public init(fhirJSON tape: borrowing JSONTape, node: Int) throws(FHIRPrimitiveError) {
        try self.init(fhirJSON: tape.scalar(at: node))
    }
}

/// A primitive value that could not be read. It names the FHIR type and what was wrong, never the
/// offending text (which may be patient data).
public struct FHIRPrimitiveError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The FHIR type that was expected, for example `"dateTime"`.
    public var type: String
    /// What was wrong, for example `"expected a string, found number"` or `"month 13 is out of range"`.
    public var reason: String

    public init(type: String, reason: String) {
        self.type = type
        self.reason = reason
    }

    public var description: String { "invalid \(type): \(reason)" }
}
