/// Why a PostgreSQL URL was refused. Never carries the password.
public enum PostgresURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL does not start with `postgres://` or `postgresql://`.
    case unsupportedScheme
    /// A part (`user`, `password`, `host`, `port`, `database`, `sslmode`) is malformed.
    case invalid(String)
    /// A query parameter other than `sslmode`.
    case unsupportedParameter(String)

    public var description: String {
        switch self {
        case .unsupportedScheme: "a PostgreSQL URL starts with postgres:// or postgresql://"
        case .invalid(let part): "the URL's \(part) is malformed"
        case .unsupportedParameter(let name): "unsupported URL parameter \(name) (only sslmode is read)"
        }
    }
}
