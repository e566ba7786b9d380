/// `POST vaca/access` (§1.4): exchanges a code and a client assertion for an access token.
/// `grant_type=authorization_code&code=…&client_assertion_type=…jwt-bearer&client_assertion=…`.
public struct VacaAccessRequest: Sendable, Hashable {
    /// `authorization_code`.
    public var grantType: String
    /// The code from `vaca/auth`.
    public var code: String
    /// `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`.
    public var clientAssertionType: String
    /// The compact client assertion (`{"code","iss"}` legacy payload, or a standard JWS).
    public var clientAssertion: String

    /// Creates a request.
    public init(code: String, clientAssertion: String) {
        grantType = "authorization_code"
        self.code = code
        clientAssertionType = VacaAuthRequest.jwtBearerAssertionType
        self.clientAssertion = clientAssertion
    }

    /// Parses the raw form body. The legacy client percent-encodes this form, so no field keeps `+`.
    public static func parse(_ body: [UInt8], mode: ProtocolMode) throws(SMOACError) -> Accepted<VacaAccessRequest> {
        let form = try FormBody.parse(body, mode: mode, literalPlusFields: ["client_assertion"])
        return Accepted(try VacaAccessRequest(form: form.value), quirks: form.quirks)
    }

    /// Reads the fields of a parsed form.
    public init(form: FormBody) throws(SMOACError) {
        guard let grantType = form["grant_type"] else { throw .malformedRequest("vaca/access: \"grant_type\" is missing") }
        guard grantType == "authorization_code" else { throw .unsupportedGrantType }
        self.grantType = grantType
        guard let code = form["code"], !code.isEmpty else { throw .malformedRequest("vaca/access: \"code\" is missing") }
        self.code = code
        guard let type = form["client_assertion_type"] else {
            throw .malformedRequest("vaca/access: \"client_assertion_type\" is missing")
        }
        guard type == VacaAuthRequest.jwtBearerAssertionType else {
            throw .invalidClient("vaca/access: unsupported client_assertion_type")
        }
        clientAssertionType = type
        guard let assertion = form["client_assertion"], !assertion.isEmpty else {
            throw .invalidClient("vaca/access: \"client_assertion\" is missing")
        }
        clientAssertion = assertion
    }

    /// The form fields, strict encoding.
    public var form: FormBody {
        FormBody(fields: [("grant_type", grantType), ("code", code), ("client_assertion_type", clientAssertionType),
                          ("client_assertion", clientAssertion)])
    }
}
