// `import ModelsDSTU2` alone brings FHIRCore's primitives and JSON types (`DateTime`, `FHIRDate`,
// `FHIRDecimal`, `FHIRString`, `FHIRPrimitive`'s values…), as FHIRModels' `ModelsDSTU2` brings
// its core module: code written against FHIRModels needs no second import.
@_exported import FHIRCore
