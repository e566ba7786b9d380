import FHIRCore

/// Validates FHIR DSTU2 (1.0.2) JSON beyond what decoding checks, and lists every problem with its path:
/// unknown elements, JSON kinds, cardinality (min/max) and required elements, one type per choice,
/// `_name` companions, primitive lexical forms (the regexes of the definitions), codes of required
/// bindings, empty values, and references inside a resource or Bundle (`#id`, `resource:N`,
/// `urn:uuid:`, relative `Type/id`).
///
/// It walks the JSON itself with the element table generated from the StructureDefinitions, so a
/// document that would not decode still gets its full list of problems. (The walk is FHIRCore's
/// `FHIRElementTable`, shared by every version.)
public struct FHIRValidator: Sendable {
    /// A validator of DSTU2 resources.
    public init() {}

    /// The DSTU2 element table, parsed once on first use.
    public static let elementTable = FHIRElementTable(
        text: ElementDefinitions.table,
        resourceTypes: Set(ResourceType.allKnownCases.map(\.rawValue)).subtracting(["Resource", "DomainResource"])
    )

    /// Parses and validates FHIR JSON bytes.
    public func validate(_ bytes: [UInt8]) -> [FHIRValidationIssue] {
        Self.elementTable.validate(bytes)
    }

    /// Validates a resource given as JSON.
    public func validate(_ value: JSONValue) -> [FHIRValidationIssue] {
        Self.elementTable.validate(value)
    }
}
