import ExactJSON

/// The protected header of an assertion: `alg`, `kid`, `typ`.
public struct JWTHeader: Sendable, Hashable {
    /// `alg` (only `ES256` is accepted).
    public var alg: String
    /// `kid` (the csiGuid, or the key's RFC 7638 thumbprint).
    public var kid: String?
    /// `typ` (`JWT`; the legacy clients send `jwt`; media types compare case-insensitively).
    public var typ: String?

    /// Creates a header.
    public init(alg: String = "ES256", kid: String?, typ: String? = "JWT") {
        self.alg = alg
        self.kid = kid
        self.typ = typ
    }

    init(json: JSONValue) throws(AssertionError) {
        guard let object = json.objectValue else { throw .malformed("header is not a JSON object") }
        guard let alg = object["alg"]?.stringValue else { throw .malformed("header has no string alg") }
        self.alg = alg
        if let kid = object["kid"] {
            guard let text = kid.stringValue else { throw .malformed("header kid is not a string") }
            self.kid = text
        } else {
            kid = nil
        }
        if let typ = object["typ"] {
            guard let text = typ.stringValue else { throw .malformed("header typ is not a string") }
            self.typ = text
        } else {
            typ = nil
        }
        if object["crit"] != nil { throw .malformed("header crit is not supported") }
    }

    /// The header JSON: `alg`, `typ`, `kid` in that order (as the Appendix A JWS).
    public var json: JSONValue {
        var object = JSONObject()
        object.append("alg", alg)
        object.append("typ", ifPresent: typ)
        object.append("kid", ifPresent: kid)
        return .object(object)
    }
}
