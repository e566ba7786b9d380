import ExactJSON

/// `vaca/auth` → `{"code": "<single-use code>", "scope": "<granted scope>", "expires_in": 60}`.
/// The legacy client reads only `code`.
public struct VacaAuthResponse: WireMessage, Hashable {
    /// The authorization code.
    public var code: String
    /// The granted scope (requested ∩ held).
    public var scope: String?
    /// Seconds until the code expires.
    public var expiresIn: Int64?

    /// Creates a response.
    public init(code: String, scope: String?, expiresIn: Int64?) {
        self.code = code
        self.scope = scope
        self.expiresIn = expiresIn
    }

    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: SMOACEndpoint.vacaAuth.path)
        code = try fields.string("code")
        scope = try fields.optionalString("scope")
        expiresIn = try fields.optionalInteger("expires_in")
    }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("code", code)
        object.append("scope", ifPresent: scope)
        if let expiresIn { object.append("expires_in", .number(String(expiresIn))) }
        return .object(object)
    }
}
