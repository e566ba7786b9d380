import FHIRCore
import Foundation

// Plain Swift values from primitives, the shortcut FHIRModels users ask for (FHIRModels issue #1):
// `patient.birthDate?.date`, `observation.status.value?.rawValue`, `name.family?.string`.

extension FHIRPrimitive where T == FHIRString {
    /// The string value.
    public var string: String? { value?.string }
}

extension FHIRPrimitive where T == FHIRURI {
    /// The URI as text.
    public var string: String? { value?.string }
    /// The URI as a `URL`, when it parses as one.
    public var url: URL? { value?.url }
}

extension FHIRPrimitive where T == FHIRBool {
    /// The boolean value.
    public var bool: Bool? { value?.bool }
}

extension FHIRPrimitive where T == FHIRInteger {
    /// The integer value.
    public var int: Int? { value.map { Int($0.integer) } }
}

extension FHIRPrimitive where T == FHIRPositiveInteger {
    /// The integer value.
    public var int: Int? { value.map { Int($0.integer) } }
}

extension FHIRPrimitive where T == FHIRUnsignedInteger {
    /// The integer value.
    public var int: Int? { value.map { Int($0.integer) } }
}

extension FHIRPrimitive where T == FHIRDecimal {
    /// The decimal value (the lexical text is in `value?.text`).
    public var decimal: Decimal? { value?.decimal }
    /// The value as a `Double`.
    public var double: Double? { value?.double }
}

extension FHIRPrimitive where T == DateTime {
    /// The start of the period the value names, as a `Date`.
    public var date: Date? { value?.asDate() }
}

extension FHIRPrimitive where T == Instant {
    /// The instant as a `Date`.
    public var date: Date? { value?.asDate() }
}

extension FHIRPrimitive where T == FHIRDate {
    /// The start of the day (or month, or year) the value names, as a `Date`.
    public var date: Date? { value?.asDate() }
}

extension FHIRPrimitive where T: FHIRCodeEnum {
    /// The code as written.
    public var code: String? { value?.rawValue }
}

extension String {
    /// This string as a FHIR string primitive.
    public func asFHIRStringPrimitive() -> FHIRPrimitive<FHIRString> { FHIRPrimitive(FHIRString(self)) }
    /// This string as a FHIR URI, or nil when it is not a URL (FHIRModels' rule).
    public func asFHIRURI() -> FHIRURI? {
        URL(string: self, encodingInvalidCharacters: false) == nil ? nil : FHIRURI(self)
    }

    /// This string as a FHIR URI primitive, or nil when it is not a URL (FHIRModels' rule;
    /// `FHIRPrimitive(FHIRURI(text))` keeps any text).
    public func asFHIRURIPrimitive() -> FHIRPrimitive<FHIRURI>? {
        asFHIRURI().map { FHIRPrimitive($0) }
    }
}

extension FHIRPrimitiveValue {
    /// This value as a primitive with no id or extensions (FHIRModels' spelling:
    /// `FHIRString("Kelly").asPrimitive()`).
    public func asPrimitive() -> FHIRPrimitive<Self> { FHIRPrimitive(self) }
}

extension URL {
    /// This URL as a FHIR URI primitive (FHIRModels' spelling).
    public func asFHIRURIPrimitive() -> FHIRPrimitive<FHIRURI> { FHIRPrimitive(FHIRURI(self)) }
}

extension Bool {
    /// This boolean as a FHIR boolean primitive.
    public func asPrimitive() -> FHIRPrimitive<FHIRBool> { FHIRPrimitive(FHIRBool(self)) }
}
