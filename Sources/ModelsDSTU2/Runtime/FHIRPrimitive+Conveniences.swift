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
