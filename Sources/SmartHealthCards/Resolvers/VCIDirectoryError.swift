import ExactJSON

/// Why a VCI directory file or snapshot could not be read.
public enum VCIDirectoryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String)
    /// The text is not JSON.
    case invalidJSON(JSONParseError)
    /// The JSON does not have the expected shape (the member that was wrong).
    case unexpectedShape(String)

    /// A one-line description.
    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read \(path)"
        case .invalidJSON(let error): "not JSON: \(error)"
        case .unexpectedShape(let member): "unexpected directory shape at \"\(member)\""
        }
    }
}
