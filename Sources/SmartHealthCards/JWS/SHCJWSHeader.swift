import ExactJSON

/// The protected header of a card's JWS (rule 11).
public struct SHCJWSHeader: Sendable, Hashable, Encodable {
    /// `alg`; SMART Health Cards require `ES256`.
    public var alg: String?
    /// `zip`; SMART Health Cards require `DEF`.
    public var zip: String?
    /// `kid`; the RFC 7638 thumbprint of the signing key.
    public var kid: String?
    /// `typ`, if present (not required).
    public var typ: String?
    /// The names of every header parameter, in order.
    public var parameterNames: [String]

    /// Reads the header fields from its JSON object.
    public init(json: JSONValue) {
        alg = json["alg"]?.stringValue
        zip = json["zip"]?.stringValue
        kid = json["kid"]?.stringValue
        typ = json["typ"]?.stringValue
        parameterNames = json.objectValue?.members.map(\.key) ?? []
    }

    /// Creates the header an issuer writes: `{"zip":"DEF","alg":"ES256","kid":…}`.
    public init(kid: String) {
        alg = "ES256"
        zip = "DEF"
        self.kid = kid
        typ = nil
        parameterNames = ["zip", "alg", "kid"]
    }

    /// The header JSON in the examples' member order.
    var issuedJSON: JSONValue {
        .object(members: [.init("zip", .string(zip ?? "DEF")), .init("alg", .string(alg ?? "ES256")), .init("kid", .string(kid ?? ""))])
    }
}
