/// A validator of one FHIR version's JSON by that version's generated element table. Each models
/// module's `FHIRValidator` conforms by naming its table; validating is the same for every version
/// (the walk is ``FHIRElementTable``'s), so it is written once, here.
public protocol FHIRTableValidator: Sendable {
    /// The version's element table.
    static var elementTable: FHIRElementTable { get }
}

extension FHIRTableValidator {
    /// Parses and validates FHIR JSON bytes.
    ///
    /// - Parameter bytes: The JSON document.
    /// - Returns: Every problem found, with its path; none for a valid resource.
    public func validate(_ bytes: [UInt8]) -> [FHIRValidationIssue] {
        Self.elementTable.validate(bytes)
    }

    /// Validates a resource given as JSON.
    ///
    /// - Parameter value: The resource's JSON.
    /// - Returns: Every problem found, with its path; none for a valid resource.
    public func validate(_ value: JSONValue) -> [FHIRValidationIssue] {
        Self.elementTable.validate(value)
    }
}
