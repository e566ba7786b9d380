/// Why an input could not be read at all (a problem with one resource or card is a refusal in
/// the report instead). Messages name the problem, never the content.
public enum HealthRecordImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input is empty.
    case empty
    /// The input starts like JSON but is not well-formed JSON (nor NDJSON).
    case malformedJSON(String)
    /// The JSON is neither a FHIR resource nor a health card.
    case notFHIR
    /// The health card input could not be read (its `SHCInput` error).
    case unreadableCard(String)

    public var description: String {
        switch self {
        case .empty: "the input is empty"
        case .malformedJSON(let reason): "the input is not well-formed JSON: \(reason)"
        case .notFHIR: "the input is neither a FHIR resource, Bundle or NDJSON nor a SMART Health Card"
        case .unreadableCard(let reason): "the health card cannot be read: \(reason)"
        }
    }
}
