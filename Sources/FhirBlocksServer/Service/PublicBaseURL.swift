import Synchronization

/// The server's base URL: the configured public URL, or, without one, the address the socket
/// was bound to (``set(boundHost:port:scheme:)``). Assertion audiences, discovery documents
/// and links print it; one instance is shared by the service and the handlers given it.
final class PublicBaseURL: Sendable {
    /// Whether the URL was configured (then the bound address does not replace it).
    private let configured: Bool
    private let value: Mutex<String>

    /// Starts with `publicURL`, or `http://127.0.0.1` until the socket is bound.
    init(configured publicURL: String?) {
        configured = publicURL != nil
        value = Mutex(publicURL ?? "http://127.0.0.1")
    }

    /// The base URL now.
    var current: String { value.withLock { $0 } }

    /// Sets `SCHEME://HOST:PORT` once the socket is bound, unless a public URL was configured.
    func set(boundHost host: String, port: Int, scheme: String) {
        guard !configured else { return }
        var shownHost = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        if shownHost.contains(":") { shownHost = "[\(shownHost)]" }   // an IPv6 literal
        value.withLock { $0 = "\(scheme)://\(shownHost):\(port)" }
    }
}
