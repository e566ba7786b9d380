/// Why stored audit bytes are not a canonical audit entry.
public enum AuditEntryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not JSON, or not an object.
    case notJSON
    /// A member is missing or has the wrong type or value.
    case invalidMember(String)
    /// The bytes parse but are not the canonical encoding of what they contain.
    case notCanonical

    public var description: String {
        switch self {
        case .notJSON: "audit entry is not a JSON object"
        case .invalidMember(let name): "audit entry member \"\(name)\" is missing or invalid"
        case .notCanonical: "audit entry bytes are not canonical"
        }
    }
}
