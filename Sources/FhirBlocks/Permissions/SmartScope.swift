/// One space-separated token of a scope string: a SMART resource scope, a HEART label scope
/// (`conf/V`, `sens/ETH`), break-the-glass (`btg`), or anything else (`openid`, `launch/patient`, …).
public enum SmartScope: Sendable, Hashable, CustomStringConvertible {
    /// `patient/Observation.rs` and friends.
    case resource(ResourceAccessScope)
    /// `conf/<level>`: a confidentiality ceiling.
    case confidentiality(ConfidentialityLevel)
    /// `sens/<code>`: a sensitive category.
    case sensitivity(SensitivityCode)
    /// `btg`: break the glass.
    case breakTheGlass
    /// Any other scope, kept verbatim.
    case other(String)

    /// Reads one token. Returns nil for a token that looks like a resource or label scope but is
    /// malformed (such tokens are dropped, never reinterpreted).
    public init?(_ token: String) {
        if token == "btg" {
            self = .breakTheGlass
        } else if token.hasPrefix("conf/") {
            guard let level = ConfidentialityLevel(rawValue: String(token.dropFirst(5))) else { return nil }
            self = .confidentiality(level)
        } else if token.hasPrefix("sens/") {
            guard let code = SensitivityCode(String(token.dropFirst(5))) else { return nil }
            self = .sensitivity(code)
        } else if token.hasPrefix("patient/") || token.hasPrefix("user/") || token.hasPrefix("system/") {
            guard let scope = ResourceAccessScope(token) else { return nil }
            self = .resource(scope)
        } else {
            guard !token.isEmpty else { return nil }
            self = .other(token)
        }
    }

    /// The scope text.
    public var description: String {
        switch self {
        case .resource(let scope): scope.description
        case .confidentiality(let level): "conf/\(level.rawValue)"
        case .sensitivity(let code): "sens/\(code.rawValue)"
        case .breakTheGlass: "btg"
        case .other(let text): text
        }
    }
}
