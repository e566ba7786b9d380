import ExactJSON

/// `csi/fetchPublicClaims` → `{"claims": [{"key": …, "value": …}, …]}`.
public struct PublicClaimsResponse: WireMessage, Hashable {
    /// The claims in registration order.
    public var claims: [PublicClaim]

    /// Creates a response.
    public init(claims: [PublicClaim]) {
        self.claims = claims
    }

    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: SMOACEndpoint.fetchPublicClaims.path)
        claims = try PublicClaim.list(from: try fields.array("claims"), context: "\(fields.context).claims")
    }

    public var json: JSONValue {
        .object(JSONObject(members: [JSONMember(key: "claims", value: .array(claims.map(\.json)))]))
    }
}
