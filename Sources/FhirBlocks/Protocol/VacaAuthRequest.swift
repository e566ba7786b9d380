/// `POST vaca/auth` (§1.4, §2.4): a JWT assertion asking for a single-use authorization code.
///
/// Accepted grant shapes (both modes): the legacy
/// `grant_type=authorization_code&assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer&assertion=…`
/// and RFC 7523 `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`. The
/// requested scope is the form's `scope` if present, else the assertion's `scope` claim; an
/// optional `patient` names the wallet whose data is wanted.
public struct VacaAuthRequest: Sendable, Hashable {
    /// RFC 7523 JWT-bearer grant type.
    public static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The assertion type the legacy client sends.
    public static let jwtBearerAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// `grant_type`.
    public var grantType: String
    /// `assertion_type` (legacy shape only).
    public var assertionType: String?
    /// The compact assertion.
    public var assertion: String
    /// `scope`, when sent in the form.
    public var scope: String?
    /// `patient` (a wallet csiGuid), when sent.
    public var patient: String?

    /// Creates a request.
    public init(grantType: String = VacaAuthRequest.jwtBearerGrantType, assertionType: String? = nil, assertion: String,
                scope: String? = nil, patient: String? = nil) {
        self.grantType = grantType
        self.assertionType = assertionType
        self.assertion = assertion
        self.scope = scope
        self.patient = patient
    }

    /// Parses the raw form body (`assertion` may carry literal `+` in compat mode).
    public static func parse(_ body: [UInt8], mode: ProtocolMode) throws(SMOACError) -> Accepted<VacaAuthRequest> {
        let form = try FormBody.parse(body, mode: mode, literalPlusFields: ["assertion"])
        return Accepted(try VacaAuthRequest(form: form.value), quirks: form.quirks)
    }

    /// Reads the fields of a parsed form.
    public init(form: FormBody) throws(SMOACError) {
        guard let grantType = form["grant_type"] else { throw .malformedRequest("vaca/auth: \"grant_type\" is missing") }
        self.grantType = grantType
        assertionType = form["assertion_type"]
        switch grantType {
        case Self.jwtBearerGrantType:
            break
        case "authorization_code":
            guard assertionType == Self.jwtBearerAssertionType else {
                throw .malformedRequest("vaca/auth: \"assertion_type\" must be \(Self.jwtBearerAssertionType)")
            }
        default:
            throw .unsupportedGrantType
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else { throw .malformedRequest("vaca/auth: \"assertion\" is missing") }
        self.assertion = assertion
        scope = form["scope"]
        patient = form["patient"]
        if let patient, CsiGuid(patient) == nil { throw .malformedRequest("vaca/auth: \"patient\" is not a 36-character UUID") }
    }

    /// The form fields, strict encoding.
    public var form: FormBody {
        var fields: [(name: String, value: String)] = [("grant_type", grantType)]
        if let assertionType { fields.append(("assertion_type", assertionType)) }
        fields.append(("assertion", assertion))
        if let scope { fields.append(("scope", scope)) }
        if let patient { fields.append(("patient", patient)) }
        return FormBody(fields: fields)
    }
}
