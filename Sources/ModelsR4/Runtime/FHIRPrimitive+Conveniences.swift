import FHIRCore
import Foundation

// Making this version's primitives from plain values, in FHIRModels' spellings. (Reading plain
// values out of primitives, `.string`, `.date`…, is FHIRCore's, shared by every version.)

extension String {
    /// This string as a FHIR string primitive.
    public func asFHIRStringPrimitive() -> FHIRPrimitive<FHIRString> { FHIRPrimitive(FHIRString(self)) }

    /// This string as a FHIR URI primitive, or nil when it is not a URL (FHIRModels' rule;
    /// `FHIRPrimitive(FHIRURI(text))` keeps any text).
    public func asFHIRURIPrimitive() -> FHIRPrimitive<FHIRURI>? {
        asFHIRURI().map { FHIRPrimitive($0) }
    }
}

extension FHIRPrimitiveValue {
    /// This value as a primitive, with an element id and extensions if given (FHIRModels'
    /// spelling: `FHIRString("Kelly").asPrimitive()`).
    public func asPrimitive(with id: String? = nil, extension: [Extension]? = nil) -> FHIRPrimitive<Self> {
        FHIRPrimitive(self, id: id, extension: `extension`)
    }
}

extension Int {
    /// This integer as a FHIR `integer` primitive (FHIRModels' spelling); values beyond 32 bits
    /// are clamped.
    public func asFHIRIntegerPrimitive() -> FHIRPrimitive<FHIRInteger> {
        FHIRPrimitive(FHIRInteger(Int32(clamping: self)))
    }

    /// This integer as a FHIR `positiveInt` primitive; one under 1 becomes 1, as in FHIRModels.
    public func asFHIRPositiveIntegerPrimitive() -> FHIRPrimitive<FHIRPositiveInteger> {
        FHIRPrimitive(FHIRPositiveInteger(Int32(clamping: self)))
    }

    /// This integer as a FHIR `unsignedInt` primitive; a negative one becomes 0, as in FHIRModels.
    public func asFHIRUnsignedIntegerPrimitive() -> FHIRPrimitive<FHIRUnsignedInteger> {
        FHIRPrimitive(FHIRUnsignedInteger(Int32(clamping: self)))
    }
}

extension Double {
    /// This number as a FHIR `decimal` primitive (FHIRModels' spelling); NaN and infinities, which
    /// FHIR cannot write, give a primitive without a value.
    public func asFHIRDecimalPrimitive() -> FHIRPrimitive<FHIRDecimal> {
        FHIRPrimitive(FHIRDecimal(exactly: self))
    }
}

extension URL {
    /// This URL as a FHIR URI primitive (FHIRModels' spelling).
    public func asFHIRURIPrimitive() -> FHIRPrimitive<FHIRURI> { FHIRPrimitive(FHIRURI(self)) }
}

extension Bool {
    /// This boolean as a FHIR boolean primitive.
    public func asPrimitive() -> FHIRPrimitive<FHIRBool> { FHIRPrimitive(FHIRBool(self)) }
}
