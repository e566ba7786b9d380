import FHIRCore

/// Validates FHIR R4 JSON beyond what decoding checks, and lists every problem with its path:
/// unknown elements, JSON kinds, cardinality (min/max) and required elements, one type per choice,
/// `_name` companions, primitive lexical forms (the regexes of the definitions), codes of required
/// bindings, empty values, and references inside a resource or Bundle (`#id`, `resource:N`,
/// `urn:uuid:`, relative `Type/id`).
///
/// It walks the JSON itself with the element table generated from the StructureDefinitions, so a
/// document that would not decode still gets its full list of problems. (The walk is FHIRCore's
/// `FHIRElementTable`, shared by every version.)
public struct FHIRValidator: Sendable {
    /// A validator of R4 resources.
    public init() {}

    /// The R4 element table, parsed once on first use.
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

// The names the R4 tests hold the primitive checks to (`@testable import ModelsR4`).
typealias ElementTable = FHIRElementTable

extension FHIRElementTable {
    /// The R4 table.
    static var r4: FHIRElementTable { FHIRValidator.elementTable }
}

enum PrimitivePattern {
    /// Whether `text` is a valid `type` by the validator's checks (the R4 table's regexes).
    static func matches(_ text: String, type: String, regexes: [String: String]) -> Bool {
        FHIRValidator.elementTable.primitiveMatches(text, type: type)
    }

    /// Whether `text` matches `type`'s R4 regex; nil when the type has none.
    static func regexMatches(_ text: String, type: String) -> Bool? {
        FHIRValidator.elementTable.regexMatches(text, type: type)
    }
}
