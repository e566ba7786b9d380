// FHIR decoding reads JSON through ExactJSON; whoever imports FHIRCore sees its types as before.
@_exported import ExactJSON
