import Foundation

// Plain Swift values from primitives, the shortcut FHIRModels users ask for (FHIRModels issue #1):
// `patient.birthDate?.date`, `observation.status.value?.rawValue`, `name.family?.string`. They hold
// for every version's `FHIRPrimitive`.

extension FHIRPrimitiveProtocol where PrimitiveType == FHIRString {
    /// The string value.
    public var string: String? { value?.string }
}

extension FHIRPrimitiveProtocol where PrimitiveType == FHIRURI {
    /// The URI as text.
    public var string: String? { value?.string }
    /// The URI as a `URL`, when it parses as one.
    public var url: URL? { value?.url }
}

extension FHIRPrimitiveProtocol where PrimitiveType == FHIRBool {
    /// The boolean value.
    public var bool: Bool? { value?.bool }
}

extension FHIRPrimitiveProtocol where PrimitiveType == FHIRInteger {
    /// The integer value.
    public var int: Int? { value.map { Int($0.integer) } }
}

extension FHIRPrimitiveProtocol where PrimitiveType == FHIRPositiveInteger {
    /// The integer value.
    public var int: Int? { value.map { Int($0.integer) } }
}

extension FHIRPrimitiveProtocol where PrimitiveType == FHIRUnsignedInteger {
    /// The integer value.
    public var int: Int? { value.map { Int($0.integer) } }
}

extension FHIRPrimitiveProtocol where PrimitiveType == FHIRDecimal {
    /// The decimal value (the lexical text is in `value?.text`).
    public var decimal: Decimal? { value?.decimal }
    /// The value as a `Double`.
    public var double: Double? { value?.double }
}

extension FHIRPrimitiveProtocol where PrimitiveType == DateTime {
    /// The start of the period the value names, as a `Date`.
    public var date: Date? { value?.asDate() }
}

extension FHIRPrimitiveProtocol where PrimitiveType == Instant {
    /// The instant as a `Date`.
    public var date: Date? { value?.asDate() }
}

extension FHIRPrimitiveProtocol where PrimitiveType == FHIRDate {
    /// The start of the day (or month, or year) the value names, as a `Date`.
    public var date: Date? { value?.asDate() }
}

extension FHIRPrimitiveProtocol where PrimitiveType: FHIRCodeEnum {
    /// The code as written.
    public var code: String? { value?.rawValue }
}

extension String {
    /// This string as a FHIR URI, or nil when it is not a URL (FHIRModels' rule).
    public func asFHIRURI() -> FHIRURI? {
        URL(string: self, encodingInvalidCharacters: false) == nil ? nil : FHIRURI(self)
    }
}
