import ExactJSON

/// An RFC 7591 dynamic client registration request for a SMART client: its redirect URIs
/// (https, or http on a loopback host only; no fragment), `token_endpoint_auth_method` `none`
/// (a public client, the default) or `private_key_jwt` with an inline `jwks` of one EC P-256
/// key (SMART `client-confidential-asymmetric`), and optionally a name. Bounded: at most ``maximumRedirectURIs`` URIs of at most
/// ``maximumURILength`` characters, a name of at most ``maximumNameLength``.
public struct ClientRegistrationRequest: Sendable, Hashable {
    /// At most this many redirect URIs.
    public static let maximumRedirectURIs = 10
    /// At most this many characters per redirect URI.
    public static let maximumURILength = 2_000
    /// At most this many characters of `client_name`.
    public static let maximumNameLength = 200

    /// The redirect URIs, compared exactly at `/authorize`.
    public var redirectURIs: [String]
    /// `client_name`, if given.
    public var clientName: String?
    /// The key a `private_key_jwt` client signs its assertions with; nil for a public client.
    public var publicKey: CsiPublicKey?

    /// Creates a request.
    public init(redirectURIs: [String], clientName: String? = nil, publicKey: CsiPublicKey? = nil) {
        self.redirectURIs = redirectURIs
        self.clientName = clientName
        self.publicKey = publicKey
    }

    /// Reads and checks a registration body.
    public init(jsonBytes: [UInt8]) throws(ClientRegistrationError) {
        guard let value = try? JSONParser.parse(jsonBytes, maximumDepth: 6), let object = value.objectValue else {
            throw .invalidClientMetadata("the body is not a JSON object")
        }
        guard let uris = object["redirect_uris"]?.arrayValue, !uris.isEmpty else {
            throw .invalidRedirectURI("\"redirect_uris\" must be a non-empty array")
        }
        guard uris.count <= Self.maximumRedirectURIs else { throw .invalidRedirectURI("at most \(Self.maximumRedirectURIs) redirect URIs") }
        var redirectURIs: [String] = []
        for uri in uris {
            guard let text = uri.stringValue else { throw .invalidRedirectURI("a redirect URI is not a string") }
            try Self.checkRedirectURI(text)
            if !redirectURIs.contains(text) { redirectURIs.append(text) }
        }
        var publicKey: CsiPublicKey?
        switch object["token_endpoint_auth_method"]?.stringValue ?? (object["token_endpoint_auth_method"] == nil ? "none" : "") {
        case "none":
            guard object["jwks"] == nil else { throw .invalidClientMetadata("a public client (token_endpoint_auth_method none) has no jwks") }
        case "private_key_jwt":
            guard object["jwks_uri"] == nil else { throw .invalidClientMetadata("jwks_uri is not supported: send the key inline in jwks") }
            guard let keys = object["jwks"]?.objectValue?["keys"]?.arrayValue, keys.count == 1, let key = keys.first else {
                throw .invalidClientMetadata("private_key_jwt needs \"jwks\" with exactly one key")
            }
            do {
                publicKey = try CsiPublicKey(jwk: key)
            } catch {
                throw .invalidClientMetadata("the jwks key must be a public EC P-256 JWK")
            }
        default:
            throw .invalidClientMetadata("token_endpoint_auth_method must be \"none\" or \"private_key_jwt\"")
        }
        if let grants = object["grant_types"] {
            guard let list = grants.arrayValue?.compactMap(\.stringValue), list.count == grants.arrayValue?.count,
                  list.allSatisfy({ $0 == "authorization_code" || $0 == "refresh_token" }) else {
                throw .invalidClientMetadata("grant_types may list only authorization_code and refresh_token")
            }
        }
        if let responses = object["response_types"] {
            guard let list = responses.arrayValue?.compactMap(\.stringValue), list.count == responses.arrayValue?.count,
                  list.allSatisfy({ $0 == "code" }) else {
                throw .invalidClientMetadata("response_types may list only code")
            }
        }
        var name: String?
        if let nameValue = object["client_name"] {
            guard let text = nameValue.stringValue, text.count <= Self.maximumNameLength, !text.contains(where: \.isNewline) else {
                throw .invalidClientMetadata("client_name must be a string of at most \(Self.maximumNameLength) characters on one line")
            }
            name = text
        }
        self.init(redirectURIs: redirectURIs, clientName: name, publicKey: publicKey)
    }

    /// Checks one redirect URI: absolute `https`, or `http` on `localhost`, `127.x.x.x` or
    /// `[::1]`; no fragment; no spaces or control characters; bounded length.
    public static func checkRedirectURI(_ text: String) throws(ClientRegistrationError) {
        guard text.utf8.count <= maximumURILength else { throw .invalidRedirectURI("a redirect URI is longer than \(maximumURILength) characters") }
        guard !text.contains("#") else { throw .invalidRedirectURI("a redirect URI may not have a fragment") }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw .invalidRedirectURI("a redirect URI may contain only visible ASCII")
        }
        let lower = text.lowercased()
        if lower.hasPrefix("https://") {
            guard host(of: text, schemeLength: 8)?.isEmpty == false else { throw .invalidRedirectURI("a redirect URI has no host") }
            return
        }
        guard lower.hasPrefix("http://"), let host = host(of: text, schemeLength: 7) else {
            throw .invalidRedirectURI("a redirect URI must be https (or http on a loopback host)")
        }
        let hostLower = host.lowercased()
        guard hostLower == "localhost" || hostLower == "[::1]" || isLoopbackIPv4(hostLower) else {
            throw .invalidRedirectURI("http redirect URIs are allowed only on loopback hosts")
        }
    }

    /// Whether `host` is a dotted-decimal address in 127.0.0.0/8 (not a name that starts "127.").
    static func isLoopbackIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in (1...3).contains(part.count) && part.allSatisfy(\.isASCII) && UInt8(part) != nil }
    }

    /// The host of `scheme://host[:port][/…]`, without the port; nil if there is userinfo.
    static func host(of text: String, schemeLength: Int) -> String? {
        let rest = text.dropFirst(schemeLength)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard !authority.contains("@") else { return nil }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            return String(authority[...close])
        }
        return String(authority.prefix { $0 != ":" })
    }
}

/// Why a client registration was refused (RFC 7591 §3.2.2 error codes).
public enum ClientRegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `invalid_redirect_uri`.
    case invalidRedirectURI(String)
    /// `invalid_client_metadata`.
    case invalidClientMetadata(String)

    /// The RFC 7591 `error` code.
    public var errorCode: String {
        switch self {
        case .invalidRedirectURI: "invalid_redirect_uri"
        case .invalidClientMetadata: "invalid_client_metadata"
        }
    }

    /// The `error_description`.
    public var errorDescription: String {
        switch self {
        case .invalidRedirectURI(let detail), .invalidClientMetadata(let detail): detail
        }
    }

    /// The `{"error","error_description"}` body.
    public var body: ErrorBody { ErrorBody(error: errorCode, errorDescription: errorDescription) }

    public var description: String { "\(errorCode): \(errorDescription)" }
}
