import CommonSupport

/// One SMART standalone-launch authorization request (SMART App Launch 2.0, RFC 6749 §4.1 with
/// RFC 7636 PKCE S256): the authorize URL the person opens, and the secrets the client keeps
/// to check the redirect (`state`) and to exchange the code (`codeVerifier`).
public struct SMARTAuthorizationRequest: Sendable, Hashable {
    /// The client's id.
    public var clientID: String
    /// Where the server sends the person back (`http://127.0.0.1:PORT/callback`).
    public var redirectURI: String
    /// The scopes asked for, space separated.
    public var scope: String
    /// The FHIR base the token is for (`aud`).
    public var audience: String
    /// The random `state` the redirect must carry back.
    public var state: String
    /// The PKCE verifier (43 characters of base64url: 32 random bytes).
    public var codeVerifier: String

    /// Creates a request with a fresh `state` and verifier from `generator`.
    public init(clientID: String, redirectURI: String, scope: String, audience: String,
                using generator: inout some RandomNumberGenerator) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        self.audience = audience
        state = Self.randomToken(using: &generator)
        codeVerifier = Self.randomToken(using: &generator)
    }

    /// The S256 challenge sent in the URL.
    public var codeChallenge: String { PKCE.challenge(for: codeVerifier) }

    /// The authorize URL: `endpoint` with the request's parameters as its query.
    public func url(endpoint: String) -> String {
        let query = FormURLEncoding.encode([
            (name: "response_type", value: "code"), (name: "client_id", value: clientID), (name: "redirect_uri", value: redirectURI),
            (name: "scope", value: scope), (name: "state", value: state), (name: "aud", value: audience),
            (name: "code_challenge", value: codeChallenge), (name: "code_challenge_method", value: PKCE.method),
        ])
        return endpoint + (endpoint.contains("?") ? "&" : "?") + String(decoding: query, as: UTF8.self)
    }

    /// 32 random bytes as 43 characters of base64url.
    static func randomToken(using generator: inout some RandomNumberGenerator) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for _ in 0..<4 {
            withUnsafeBytes(of: generator.next().littleEndian) { bytes.append(contentsOf: $0) }
        }
        return Base64URL.encode(bytes)
    }
}
