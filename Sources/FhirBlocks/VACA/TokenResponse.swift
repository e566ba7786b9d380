import ExactJSON

/// The RFC 6749 §5.1 token response (`vaca/access`, token endpoint):
/// `{"access_token","token_type":"bearer","expires_in":<number>,"scope","patient"}`, plus
/// `refresh_token` when one was issued.
public struct TokenResponse: WireMessage, Hashable {
    /// The token.
    public var accessToken: String
    /// `bearer`.
    public var tokenType: String
    /// Seconds until expiry (a JSON number).
    public var expiresIn: Int64
    /// The granted scope.
    public var scope: String
    /// The patient context (SMART top-level `patient`).
    public var patient: String?
    /// The refresh token, when `offline_access` was granted (SMART standalone launch).
    public var refreshToken: String?

    /// Creates a response.
    public init(accessToken: String, tokenType: String = "bearer", expiresIn: Int64, scope: String, patient: String?, refreshToken: String? = nil) {
        self.refreshToken = refreshToken
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.scope = scope
        self.patient = patient
    }

    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: "token response")
        accessToken = try fields.string("access_token")
        tokenType = try fields.string("token_type")
        guard let expiresIn = try fields.optionalInteger("expires_in") else { throw .malformedRequest("token response: \"expires_in\" is missing") }
        self.expiresIn = expiresIn
        scope = try fields.optionalString("scope") ?? ""
        patient = try fields.optionalString("patient")
        refreshToken = try fields.optionalString("refresh_token")
    }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("access_token", accessToken)
        object.append("token_type", tokenType)
        object.append("expires_in", .number(String(expiresIn)))
        object.append("scope", scope)
        object.append("patient", ifPresent: patient)
        object.append("refresh_token", ifPresent: refreshToken)
        return .object(object)
    }

    /// The response body: JSON, or in compat mode for a legacy request the bare token
    /// (§1.10 item 8; the legacy client uses the whole body as the token).
    public func body(bareToken: Bool) -> Accepted<[UInt8]> {
        bareToken ? Accepted(Array(accessToken.utf8), quirks: [.bareTokenResponse]) : Accepted(jsonBytes)
    }
}
