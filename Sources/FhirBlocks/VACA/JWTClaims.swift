import ExactJSON

/// The claims of a VACA assertion (§1.4, §2.2). Times are seconds since the epoch; the legacy
/// clients send them as numeric strings (``CompatQuirk/stringTimeClaims``).
public struct JWTClaims: Sendable, Hashable {
    /// `iss`: the client's csiGuid.
    public var iss: String?
    /// `sub`: the client (or, legacy, the wallet).
    public var sub: String?
    /// `aud`: one or more audiences.
    public var aud: [String]
    /// `exp`.
    public var exp: Int64?
    /// `iat`.
    public var iat: Int64?
    /// `nbf`.
    public var nbf: Int64?
    /// `jti`.
    public var jti: String?
    /// `scope` (space-separated).
    public var scope: String?
    /// `sta`: the legacy device binding (the registered deviceId).
    public var sta: String?
    /// `code` (legacy `vaca/access` assertion).
    public var code: String?
    /// Whether any time claim was a numeric string.
    public var hasStringTimes: Bool

    /// Creates claims.
    public init(iss: String?, sub: String?, aud: [String], exp: Int64?, iat: Int64?, nbf: Int64? = nil, jti: String?,
                scope: String? = nil, sta: String? = nil, code: String? = nil) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.nbf = nbf
        self.jti = jti
        self.scope = scope
        self.sta = sta
        self.code = code
        hasStringTimes = false
    }

    init(json: JSONValue) throws(AssertionError) {
        guard let object = json.objectValue else { throw .malformed("payload is not a JSON object") }
        func string(_ name: String) throws(AssertionError) -> String? {
            guard let value = object[name] else { return nil }
            guard let text = value.stringValue else { throw .invalidClaim(name) }
            return text
        }
        var stringTimes = false
        func time(_ name: String) throws(AssertionError) -> Int64? {
            guard let value = object[name] else { return nil }
            switch value {
            case .number(let text):
                guard let seconds = Int64(text) else { throw .invalidClaim(name) }
                return seconds
            case .string(let text):
                guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                      let seconds = Int64(text) else { throw .invalidClaim(name) }
                stringTimes = true
                return seconds
            default:
                throw .invalidClaim(name)
            }
        }
        iss = try string("iss")
        sub = try string("sub")
        switch object["aud"] {
        case nil: aud = []
        case .string(let text)?: aud = [text]
        case .array(let values)?:
            var audiences: [String] = []
            for value in values {
                guard let text = value.stringValue else { throw .invalidClaim("aud") }
                audiences.append(text)
            }
            aud = audiences
        default: throw .invalidClaim("aud")
        }
        exp = try time("exp")
        iat = try time("iat")
        nbf = try time("nbf")
        jti = try string("jti")
        scope = try string("scope")
        sta = try string("sta")
        code = try string("code")
        hasStringTimes = stringTimes
    }

    /// The payload JSON, standard form (numeric times, `aud` a string when single).
    public var json: JSONValue {
        var object = JSONObject()
        object.append("iss", ifPresent: iss)
        object.append("sub", ifPresent: sub)
        if aud.count == 1 { object.append("aud", aud[0]) } else if !aud.isEmpty { object.append("aud", strings: aud) }
        if let iat { object.append("iat", .number(String(iat))) }
        if let exp { object.append("exp", .number(String(exp))) }
        if let nbf { object.append("nbf", .number(String(nbf))) }
        object.append("jti", ifPresent: jti)
        object.append("scope", ifPresent: scope)
        object.append("sta", ifPresent: sta)
        object.append("code", ifPresent: code)
        return .object(object)
    }
}
