import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksStore
import SmartHealthCards

/// SMART discovery (§2.1): `/.well-known/smart-configuration` and the CapabilityStatement's
/// `oauth-uris` extension (the only discovery Python fhirclient reads): backend services,
/// standalone launch with PKCE, dynamic registration, refresh tokens. The discovery area's
/// handler, given only what the documents print: the configuration, the base URL, the clock
/// (the statement's date) and the health card issuer key (whether cards are issued).
struct DiscoveryHandler: Sendable {
    let configuration: ServerConfiguration
    let publicBaseURL: PublicBaseURL
    let clock: TrustClock
    let cardIssuerKey: SHCIssuerKey?

    /// Whether `$health-cards-issue` is offered: an issuer key, an https base URL (the `iss`
    /// of a card is the issuer's https URL) and at least one card source the operator vouches for.
    var issuesHealthCards: Bool {
        cardIssuerKey != nil && publicBaseURL.current.hasPrefix("https://") && !configuration.cardSources.isEmpty
    }

    /// `GET /fhir/metadata`: the CapabilityStatement (no token needed).
    func metadata() -> ServiceResponse {
        .json(capabilityStatement, contentType: FHIRController.fhirJSON)
    }

    /// The SMART configuration document.
    func smartConfiguration() -> ServiceResponse {
        let base = publicBaseURL.current
        var object = JSONObject()
        object.append("issuer", base)
        object.append("token_endpoint", "\(base)/oauth/token")
        object.append("introspection_endpoint", "\(base)/oauth/introspect")
        object.append("revocation_endpoint", "\(base)/oauth/revoke")
        object.append("management_endpoint", "\(base)/permission/fetchPermissionsPreviouslyGrantedByMe")
        // Standalone launch: /oauth/authorize (the patient approves with their wallet), PKCE S256
        // only, public clients by dynamic registration, rotating refresh tokens.
        object.append("authorization_endpoint", "\(base)/oauth/authorize")
        object.append("registration_endpoint", "\(base)/oauth/register")
        object.append("response_types_supported", strings: ["code"])
        object.append("code_challenge_methods_supported", strings: [PKCE.method])
        object.append("grant_types_supported", strings: ["authorization_code", "client_credentials", "refresh_token"])
        object.append("token_endpoint_auth_methods_supported", strings: ["private_key_jwt", "none"])
        object.append("token_endpoint_auth_signing_alg_values_supported", strings: BackendAssertion.algorithms)
        // RFC 8414: revocation authenticates the client as the token endpoint does (public clients by
        // client_id); introspection takes a bearer token, which RFC 8414 has no auth method name for.
        object.append("revocation_endpoint_auth_methods_supported", strings: ["private_key_jwt", "none"])
        object.append("scopes_supported", strings: ["patient/*.rs", "patient/*.cruds", "patient/*.read", "patient/*.write", "launch/patient", "offline_access",
                                                     "system/*.rs", "system/*.read", "conf/U", "conf/L", "conf/M", "conf/N", "conf/R", "conf/V",
                                                     "sens/ETH", "sens/PSY"])
        object.append("capabilities", strings: ["launch-standalone", "client-public", "client-confidential-asymmetric", "context-standalone-patient",
                                                "permission-patient", "permission-v1", "permission-v2", "permission-offline",
                                                "https://openhealthkit.org/fhirblocks/capability/heart-labels"]
                                + (issuesHealthCards ? [SHCHealthCardsIssue.smartConfigurationCapability] : []))
        return .json(.object(object), headers: [("Access-Control-Allow-Origin", "*")])
    }

    /// The CapabilityStatement at `/fhir/metadata`.
    var capabilityStatement: JSONValue {
        let base = publicBaseURL.current
        func uriExtension(_ url: String, _ value: String) -> JSONValue {
            .object(JSONObject(members: [JSONMember(key: "url", value: .string(url)), JSONMember(key: "valueUri", value: .string(value))]))
        }
        var security = JSONObject()
        security.append("extension", .array([.object(JSONObject(members: [
            JSONMember(key: "url", value: .string("http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris")),
            JSONMember(key: "extension", value: .array([uriExtension("token", "\(base)/oauth/token"),
                                                        uriExtension("authorize", "\(base)/oauth/authorize"),
                                                        uriExtension("register", "\(base)/oauth/register"),
                                                        uriExtension("introspect", "\(base)/oauth/introspect"),
                                                        uriExtension("revoke", "\(base)/oauth/revoke")])),
        ]))]))
        security.append("service", .array([.object(JSONObject(members: [JSONMember(key: "coding", value: .array([.object(JSONObject(members: [
            JSONMember(key: "system", value: .string("http://terminology.hl7.org/CodeSystem/restful-security-service")),
            JSONMember(key: "code", value: .string("SMART-on-FHIR")),
        ]))]))]))]))
        var rest = JSONObject()
        rest.append("mode", "server")
        rest.append("security", .object(security))
        // What each type supports (``resourceCapabilities(issuesHealthCards:)``): what the routes answer, no more.
        rest.append("resource", .array(Self.resourceCapabilities(issuesHealthCards: issuesHealthCards)))
        rest.append("interaction", .array(["transaction", "batch"].map(Self.code)))
        // Bulk Data: the system-level export (the server's auditors only); Patient's and Group's are on their resources.
        rest.append("operation", .array([Self.exportOperation("export")]))
        var statement = JSONObject()
        statement.append("resourceType", "CapabilityStatement")
        statement.append("status", "active")
        statement.append("date", clock.now().wireText)
        statement.append("kind", "instance")
        statement.append("instantiates", strings: [Self.bulkDataCapabilityStatement])
        statement.append("software", .object(JSONObject(members: [JSONMember(key: "name", value: .string("OpenHealthKit FhirBlocks")),
                                                                  JSONMember(key: "version", value: .string(configuration.version))])))
        statement.append("implementation", .object(JSONObject(members: [JSONMember(key: "description", value: .string("FhirBlocks protected FHIR endpoint")),
                                                                        JSONMember(key: "url", value: .string("\(base)/fhir"))])))
        statement.append("fhirVersion", "4.0.1")
        statement.append("format", strings: ["json"])
        statement.append("rest", .array([.object(rest)]))
        return .object(statement)
    }

    /// The Bulk Data Access IG's CapabilityStatement the server's instantiates.
    static let bulkDataCapabilityStatement = "http://hl7.org/fhir/uv/bulkdata/CapabilityStatement/bulk-data"

    /// A Bulk Data `export` operation entry: `definition` the IG's OperationDefinition `id`
    /// (`export` at the system level, `patient-export` on Patient, `group-export` on Group).
    static func exportOperation(_ id: String) -> JSONValue {
        .object(JSONObject(members: [JSONMember(key: "name", value: .string("export")),
                                     JSONMember(key: "definition", value: .string("http://hl7.org/fhir/uv/bulkdata/OperationDefinition/\(id)"))]))
    }

    /// A CapabilityStatement `searchParam` entry for a generated R4 parameter (its name and type;
    /// no `definition`, since several R4 definitions are shared between types under other ids).
    static func searchParamEntry(_ parameter: SearchParameterDefinition) -> JSONValue {
        .object(JSONObject(members: [
            JSONMember(key: "name", value: .string(parameter.code)),
            JSONMember(key: "type", value: .string(parameter.type.rawValue)),
        ]))
    }
}
