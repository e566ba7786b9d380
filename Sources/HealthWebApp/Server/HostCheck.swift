import HTTPTypes
import Hummingbird
import Synchronization

/// The port the application listens on, once it does: the port every request's `Host` must name.
final class ListeningPort: Sendable {
    private let port = Mutex<Int?>(nil)

    /// The port, or nil while the router is used without a server (the tests' router client).
    var value: Int? { port.withLock { $0 } }

    func set(_ value: Int) {
        port.withLock { $0 = value }
    }
}

/// Against DNS rebinding: a page another site loads under its own name that resolves to
/// 127.0.0.1 sends that name as `Host`, so only `127.0.0.1:PORT`, `localhost:PORT` and
/// `[::1]:PORT` (this machine's loopback by each of its names, as the links receiver takes them;
/// the port the application listens on; host names compared without case) are answered. Any other `Host`
/// answers 421 (Misdirected Request), a request without one 400, before anything else is done
/// (the start secret is not spent, no cookie is read). Without a server (the router on its own)
/// the port is not known and only the host name is checked.
struct HostCheck {
    let listeningPort: ListeningPort

    /// The host names the application answers at: no DNS name can rebind to one of them.
    static let loopbackNames = ["127.0.0.1", "localhost", "[::1]"]

    /// Why the request is refused, or nil when its `Host` is one the application answers at.
    func refusal(_ request: Request) -> (status: HTTPResponse.Status, message: String)? {
        guard let authority = request.head.authority, !authority.isEmpty else {
            return (.badRequest, "The request names no host. Open the link that health ui printed.")
        }
        let lowered = authority.lowercased()
        let names = Self.loopbackNames
        if let port = listeningPort.value {
            if names.contains(where: { lowered == "\($0):\(port)" }) { return nil }
        } else if names.contains(where: { lowered == $0 || lowered.hasPrefix("\($0):") && lowered.dropFirst($0.count + 1).allSatisfy(\.isNumber) }) {
            return nil
        }
        let address = listeningPort.value.map { "http://127.0.0.1:\($0)" } ?? "http://127.0.0.1"
        return (.misdirectedRequest, "This page answers only at \(address), the address health ui printed.")
    }
}
