import ExactJSON

/// Why a revocation list (CRL) could not be read.
public enum SHCRevocationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not JSON.
    case invalidJSON(JSONParseError)
    /// The JSON is not an object.
    case notAnObject
    /// A required member (`kid`, `method`, `ctr` or `rids`) is missing or of the wrong kind.
    case invalidMember(String)

    /// A one-line description.
    public var description: String {
        switch self {
        case .invalidJSON(let error): "CRL is not JSON: \(error)"
        case .notAnObject: "CRL is not a JSON object"
        case .invalidMember(let name): "CRL member \"\(name)\" is missing or invalid"
        }
    }
}
