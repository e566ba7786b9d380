import NIOCore

/// The key the per-address limits count a client by.
///
/// An IPv4 client is its address. An IPv6 client is its /64 network: one host is usually
/// given a whole /64 and can pick any address in it, so counting single IPv6 addresses would
/// give it an unbounded number of allowances. A socket without an IP address (a Unix socket,
/// a test channel) is `local`. Behind a reverse proxy every client has the proxy's address:
/// there the limits are the proxy's to enforce, or these must be raised.
enum ClientAddress {
    /// The key of the client whose request the current task serves: ``RateLimitMiddleware``
    /// binds it around the rest of the request, so the service's per-address limits
    /// (registration, `/authorize`, user-code guesses) see the peer without every endpoint
    /// passing it along. `local` outside a request (a test calling the service directly).
    @TaskLocal static var current: String = "local"

    static func key(of address: SocketAddress?) -> String {
        guard let address else { return "local" }
        switch address {
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            // An IPv4-mapped address (::ffff:a.b.c.d) is its IPv4 address.
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return bytes[12..<16].map(String.init).joined(separator: ".")
            }
            return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                .joined(separator: ":") + "::/64"
        default:
            return address.ipAddress ?? "local"
        }
    }
}
