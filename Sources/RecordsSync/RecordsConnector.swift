import ExactJSON
import HealthRecords
import Foundation
import OpenHealthKit

/// Connects a store to a SMART on FHIR server (standalone launch, SMART App Launch 2.0):
/// discovery, dynamic registration when no client id is given (RFC 7591), PKCE S256, the
/// authorize URL handed to the caller to show, the redirect caught on 127.0.0.1, the code
/// exchanged, and the connection sealed in the store. Nothing here is specific to FhirBlocks.
public struct RecordsConnector: Sendable {
    /// How to connect.
    public struct Options: Sendable {
        /// The connection's name (default: the server's host and port).
        public var name: String?
        /// A client id registered beforehand; nil registers one.
        public var clientID: String?
        /// The scopes to ask for; nil asks ``defaultScope``.
        public var scope: String?
        /// How long to wait for the person to come back.
        public var callbackTimeout: Duration
        /// PEM certificate authorities the server's TLS certificate is checked against besides
        /// the system's, kept with the connection for its syncs (the connector's own client
        /// must already trust them: see ``SMARTHTTP/trusting(pem:)``).
        public var caCertificatesPEM: String?

        /// Creates options.
        public init(name: String? = nil, clientID: String? = nil, scope: String? = nil, callbackTimeout: Duration = .seconds(900),
                    caCertificatesPEM: String? = nil) {
            self.name = name
            self.clientID = clientID
            self.scope = scope
            self.callbackTimeout = callbackTimeout
            self.caCertificatesPEM = caCertificatesPEM
        }
    }

    /// The scopes asked by default: the patient in context, a refresh token, and read and
    /// search (SMART v2 `.rs`) of the Patient and of every clinical resource type synced.
    public static let defaultScope = (["launch/patient", "offline_access", "patient/Patient.rs"]
        + ClinicalRecordClassifier.r4ResourceTypes.map { "patient/\($0).rs" }).joined(separator: " ")

    /// The store the connection is saved in (opened as its owner).
    public let store: HKHealthStore
    /// The HTTP client.
    public let http: SMARTHTTP

    /// Creates a connector.
    public init(store: HKHealthStore, http: SMARTHTTP) {
        self.store = store
        self.http = http
    }

    /// Runs the whole flow: `present` is given the authorize URL to show (and open) once the
    /// listener waits for the redirect. Saves and returns the connection. A connection of the
    /// same name is replaced; when it was to the same server and patient, its sync marks are kept.
    public func connect(fhirBase: String, options: Options = Options(),
                        present: @Sendable (String) async -> Void) async throws(RecordsSyncError) -> RecordsConnection {
        let base = RecordsConnection.normalized(base: fhirBase)
        let endpoints = try await discover(fhirBase: base)
        if !endpoints.codeChallengeMethods.isEmpty, !endpoints.codeChallengeMethods.contains("S256") {
            throw .unsupported("PKCE S256")
        }
        let listener = try await LoopbackRedirectListener.start()
        do {
            let clientID: String
            if let given = options.clientID {
                clientID = given
            } else {
                clientID = try await register(endpoints: endpoints, redirectURI: listener.redirectURI)
            }
            var generator = SystemRandomNumberGenerator()
            let request = SMARTAuthorizationRequest(clientID: clientID, redirectURI: listener.redirectURI, scope: options.scope ?? Self.defaultScope,
                                               audience: base, using: &generator)
            await present(request.url(endpoint: endpoints.authorization))
            let callback = try await listener.callback(timeout: options.callbackTimeout)
            let code = try Self.code(from: callback, state: request.state)
            let tokens = try await exchange(code: code, request: request, endpoints: endpoints)
            guard let patient = tokens.patient, !patient.isEmpty else {
                throw RecordsSyncError.unsupported("a patient in context (the token response has no patient)")
            }
            let name = options.name ?? Self.defaultName(base: base)
            var connection = RecordsConnection(name: name, fhirBase: base, endpoints: endpoints, clientID: clientID, redirectURI: request.redirectURI,
                                               patient: patient, tokens: tokens, caCertificatesPEM: options.caCertificatesPEM, connectedAt: Date())
            do {
                if let old = try await store.healthRecordsConnection(named: name).map(RecordsConnection.init(stored:)),
                   old.fhirBase == base, old.patient == patient {
                    connection.marks = old.marks
                    connection.pending = old.pending
                    connection.cursors = old.cursors
                    connection.lastSyncAt = old.lastSyncAt
                }
                try await store.saveHealthRecordsConnection(connection.stored())
            } catch let error as RecordsSyncError {
                throw error
            } catch {
                throw RecordsSyncError.connection("the connection could not be saved: \(error)")
            }
            return connection
        } catch let error as RecordsSyncError {
            await listener.close()
            throw error
        } catch {
            await listener.close()
            throw .connection("\(error)")
        }
    }

    /// SMART discovery: `.well-known/smart-configuration`, else `/metadata`'s `oauth-uris`.
    public func discover(fhirBase base: String) async throws(RecordsSyncError) -> SMARTEndpoints {
        let wellKnown = try await http.get("\(base)/.well-known/smart-configuration", accept: "application/json")
        if wellKnown.status == 200, let endpoints = try? SMARTEndpoints.parse(smartConfiguration: wellKnown.body) {
            return endpoints
        }
        let metadata = try await http.get("\(base)/metadata")
        guard metadata.status == 200 else {
            throw .discovery("\(base)/.well-known/smart-configuration answered \(wellKnown.status), /metadata \(metadata.status)")
        }
        return try SMARTEndpoints.parse(capabilityStatement: metadata.body)
    }

    /// Registers a public client for `redirectURI` (RFC 7591); its `client_id`.
    public func register(endpoints: SMARTEndpoints, redirectURI: String) async throws(RecordsSyncError) -> String {
        guard let endpoint = endpoints.registration else {
            throw .unsupported("dynamic client registration (give --client-id)")
        }
        var object = JSONObject()
        object.append("client_name", "OpenHealthKit health records")
        object.append("redirect_uris", strings: [redirectURI])
        object.append("token_endpoint_auth_method", "none")
        object.append("grant_types", strings: ["authorization_code", "refresh_token"])
        object.append("response_types", strings: ["code"])
        var writer = JSONWriter()
        writer.value(.object(object))
        let response = try await http.postJSON(endpoint, body: writer.bytes)
        guard response.status == 200 || response.status == 201 else {
            let oauthError = TokenGrant.oauthError(response.body).map { " \($0.error)" } ?? ""
            throw .registration("\(SMARTHTTP.endpoint(endpoint)) answered \(response.status)\(oauthError)")
        }
        guard let clientID = (try? JSONParser.parse(response.body))?["client_id"]?.stringValue, !clientID.isEmpty else {
            throw .malformedResponse("the registration answer has no client_id")
        }
        return clientID
    }

    /// Exchanges an authorization code (with the request's verifier and redirect URI).
    public func exchange(code: String, request: SMARTAuthorizationRequest, endpoints: SMARTEndpoints) async throws(RecordsSyncError) -> TokenGrant {
        try await Self.tokenRequest(http: http, endpoint: endpoints.token, fields: [
            (name: "grant_type", value: "authorization_code"), (name: "code", value: code), (name: "redirect_uri", value: request.redirectURI),
            (name: "code_verifier", value: request.codeVerifier), (name: "client_id", value: request.clientID),
        ])
    }

    /// POSTs to the token endpoint; the grant, or the server's OAuth error.
    static func tokenRequest(http: SMARTHTTP, endpoint: String, fields: [(name: String, value: String)]) async throws(RecordsSyncError) -> TokenGrant {
        let response = try await http.postForm(endpoint, fields: fields)
        guard response.status == 200 else {
            let error = TokenGrant.oauthError(response.body)
            throw .tokenRefused(error: error?.error ?? "HTTP \(response.status)", description: error?.description)
        }
        return try TokenGrant.parse(response.body, now: Date())
    }

    /// The code of a redirect, after checking its `state`; an OAuth error as such.
    public static func code(from callback: [String: String], state: String) throws(RecordsSyncError) -> String {
        if let error = callback["error"] {
            throw .authorizationRefused(error: error, description: callback["error_description"])
        }
        guard callback["state"] == state else { throw .callback("the redirect's state does not match the request's") }
        guard let code = callback["code"], !code.isEmpty else { throw .callback("the redirect has no code") }
        return code
    }

    /// The default name of a connection: the base URL's host (and port).
    public static func defaultName(base: String) -> String {
        guard let components = URLComponents(string: base), let host = components.host else { return base }
        return components.port.map { "\(host):\($0)" } ?? host
    }
}
