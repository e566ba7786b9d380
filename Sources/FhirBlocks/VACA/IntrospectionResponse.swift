import ExactJSON

/// An RFC 7662 introspection response. An inactive token answers only `{"active": false}`.
public struct IntrospectionResponse: WireMessage, Hashable {
    /// Whether the token is usable now.
    public var active: Bool
    /// The granted scope.
    public var scope: String?
    /// `client_id`.
    public var clientID: String?
    /// Expiry, seconds since the epoch.
    public var exp: Int64?
    /// Issue time, seconds since the epoch.
    public var iat: Int64?
    /// `sub` (the client).
    public var sub: String?
    /// The patient context.
    public var patient: String?
    /// `token_type`.
    public var tokenType: String?

    /// Creates a response.
    public init(active: Bool, scope: String? = nil, clientID: String? = nil, exp: Int64? = nil, iat: Int64? = nil,
                sub: String? = nil, patient: String? = nil, tokenType: String? = nil) {
        self.active = active
        self.scope = scope
        self.clientID = clientID
        self.exp = exp
        self.iat = iat
        self.sub = sub
        self.patient = patient
        self.tokenType = tokenType
    }

    /// `{"active": false}`.
    public static let inactive = IntrospectionResponse(active: false)

    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: "introspection response")
        guard let active = try fields.optionalBool("active") else { throw .malformedRequest("introspection response: \"active\" is missing") }
        self.active = active
        scope = try fields.optionalString("scope")
        clientID = try fields.optionalString("client_id")
        exp = try fields.optionalInteger("exp")
        iat = try fields.optionalInteger("iat")
        sub = try fields.optionalString("sub")
        patient = try fields.optionalString("patient")
        tokenType = try fields.optionalString("token_type")
    }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("active", .bool(active))
        guard active else { return .object(object) }
        object.append("scope", ifPresent: scope)
        object.append("client_id", ifPresent: clientID)
        if let exp { object.append("exp", .number(String(exp))) }
        if let iat { object.append("iat", .number(String(iat))) }
        object.append("sub", ifPresent: sub)
        object.append("patient", ifPresent: patient)
        object.append("token_type", ifPresent: tokenType)
        return .object(object)
    }
}
