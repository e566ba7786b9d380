import CommonSupport

/// A PostgreSQL connection URL, `postgres://user:password@host:port/database?sslmode=…`
/// (`postgresql://` is accepted too), read without Foundation.
///
/// User, password and database may be percent-encoded. The host is a name, an IPv4 address or
/// an IPv6 address in brackets (`[::1]`). The port defaults to 5432, the user to `postgres`.
/// The only query parameter read is `sslmode`: `disable`, `prefer` (the default) or `require`;
/// any other parameter is refused rather than ignored, so a typo is not silently dropped.
/// Unlike libpq, `prefer` and `require` verify the server's certificate against the system's
/// trust roots: a server with a self-signed certificate needs `sslmode=disable` (loopback, a
/// private network) or a certificate the system trusts.
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    /// Whether and how the connection uses TLS.
    public enum SSLMode: String, Sendable, Hashable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS if the server offers it, plain TCP otherwise.
        case prefer
        /// TLS or no connection.
        case require
    }

    /// The server's host name or address (IPv6 without brackets).
    public var host: String
    /// The TCP port.
    public var port: Int
    /// The user name.
    public var username: String
    /// The password, if any.
    public var password: String?
    /// The database, if named (the server then uses the user's name).
    public var database: String?
    /// The TLS mode.
    public var sslMode: SSLMode

    /// Creates a URL from its parts.
    public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String?, sslMode: SSLMode = .prefer) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.sslMode = sslMode
    }

    /// Reads a URL. Throws ``PostgresURLError`` naming the part that is wrong (never the
    /// password).
    public init(_ text: String) throws(PostgresURLError) {
        var rest = Substring(text)
        if rest.hasPrefix("postgres://") {
            rest = rest.dropFirst("postgres://".count)
        } else if rest.hasPrefix("postgresql://") {
            rest = rest.dropFirst("postgresql://".count)
        } else {
            throw .unsupportedScheme
        }
        // The query string, then the path (database), then the authority.
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path: Substring?
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var authority = rest
        var username = "postgres"
        var password: String?
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                username = try Self.percentDecoded(userInfo[..<colon], part: "user")
                password = try Self.percentDecoded(userInfo[userInfo.index(after: colon)...], part: "password")
            } else {
                username = try Self.percentDecoded(userInfo, part: "user")
            }
            guard !username.isEmpty else { throw .invalid("user") }
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalid("host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalid("host") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "%" }) else { throw .invalid("host") }
        var port = 5432
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else { throw .invalid("port") }
            port = value
        }
        var database: String?
        if let path, !path.isEmpty {
            guard !path.contains("/") else { throw .invalid("database") }
            database = try Self.percentDecoded(path, part: "database")
        }
        var sslMode = SSLMode.prefer
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "sslmode" else { throw .unsupportedParameter(String(parts[0])) }
            guard let mode = SSLMode(rawValue: String(parts[1])) else { throw .invalid("sslmode") }
            sslMode = mode
        }
        self.init(host: String(host), port: port, username: username, password: password, database: database, sslMode: sslMode)
    }

    /// The same server and credentials with another database.
    public func with(database: String?) -> PostgresURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// The URL text, percent-encoding what needs it (includes the password).
    public var text: String { rendered(password: password.map(FormURLEncoding.percentEncoded)) }

    /// The URL with the password replaced by `***`, for logs and errors.
    public var description: String { rendered(password: password == nil ? nil : "***") }

    private func rendered(password passwordText: String?) -> String {
        var result = "postgres://" + FormURLEncoding.percentEncoded(username)
        if let passwordText { result += ":" + passwordText }
        result += "@" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        if let database { result += "/" + FormURLEncoding.percentEncoded(database) }
        if sslMode != .prefer { result += "?sslmode=\(sslMode.rawValue)" }
        return result
    }

    private static func percentDecoded(_ text: Substring, part: String) throws(PostgresURLError) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(HexText.nibble), let low = utf8.next().flatMap(HexText.nibble) else { throw .invalid(part) }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .invalid(part) }
        return decoded
    }
}
