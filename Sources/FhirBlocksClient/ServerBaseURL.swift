import Foundation

/// A FhirBlocks server's base URL (`BASE` of the HTTP API): an absolute `http` or `https` URL
/// with a host, kept without a trailing `/`, no query and no fragment.
///
/// Assertion audiences are built from it (`BASE/oauth/token`, `BASE/vaca/auth`,
/// `BASE/vaca/access`), so it must be the server's public URL (`--public-url`).
public struct ServerBaseURL: Sendable, Hashable, CustomStringConvertible {
    /// The URL text without a trailing slash, for example `http://127.0.0.1:8080`.
    public let text: String

    /// Reads a base URL; a trailing `/` is dropped.
    public init(_ text: String) throws(FhirBlocksClientError) {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let components = URLComponents(string: trimmed) else {
            throw .invalidBaseURL("not a URL")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidBaseURL("the scheme must be http or https")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidBaseURL("no host") }
        guard components.query == nil, components.fragment == nil else {
            throw .invalidBaseURL("a base URL has no query or fragment")
        }
        guard components.user == nil, components.password == nil else {
            throw .invalidBaseURL("a base URL carries no user or password")
        }
        self.text = trimmed
    }

    /// The absolute URL of `path` (relative to the base, with or without a leading `/`).
    public func url(_ path: String) -> String {
        path.hasPrefix("/") ? text + path : text + "/" + path
    }

    /// The audience of an assertion sent to `path` (for example `oauth/token`).
    public func audience(_ path: String) -> String { url(path) }

    public var description: String { text }
}
