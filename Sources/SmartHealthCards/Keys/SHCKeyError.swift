import ExactJSON

/// Why a JWK, JWK set or private key could not be read.
public enum SHCKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not JSON.
    case invalidJSON(JSONParseError)
    /// The JSON is not an object.
    case notAnObject
    /// A JWK set without a `keys` array.
    case missingKeysArray
    /// A private JWK that is not an EC P-256 key with `d`, `x` and `y`, or whose `d` does not
    /// match `x`/`y`.
    case invalidPrivateKey(String)

    /// A one-line description.
    public var description: String {
        switch self {
        case .invalidJSON(let error): "not JSON: \(error)"
        case .notAnObject: "not a JSON object"
        case .missingKeysArray: "a JWK set needs a \"keys\" array"
        case .invalidPrivateKey(let reason): "invalid private key: \(reason)"
        }
    }
}
