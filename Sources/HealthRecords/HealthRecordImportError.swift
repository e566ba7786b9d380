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
    /// A JSON document (a resource, a Bundle, a card file) or an NDJSON line is larger than
    /// ``HealthRecordInput/maximumDocumentSize`` bytes (the limit is the associated value).
    case tooLarge(Int)

    public var description: String {
        switch self {
        case .empty: "the input is empty"
        case .malformedJSON(let reason): "the input is not well-formed JSON: \(reason)"
        case .notFHIR: "the input is neither a FHIR resource, Bundle or NDJSON nor a SMART Health Card"
        case .unreadableCard(let reason): "the health card cannot be read: \(reason)"
        case .tooLarge(let limit):
            "the input is larger than \(limit / 1_048_576) MiB, the most one FHIR document or NDJSON line may be "
                + "(a larger Bundle can be imported as NDJSON, one resource per line)"
        }
    }
}
