import Glibc

/// Plain sockets on the loopback address, for the tests that need what an HTTP client hides
/// (a small receive buffer, a reset in the middle of a response, bytes as they arrive).
public enum LoopbackSocket {
    /// Connects the TCP socket `descriptor` to 127.0.0.1:`port`; false, with `errno` set, when
    /// the connection is refused or fails.
    public static func connect(_ descriptor: Int32, port: Int) -> Bool {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
