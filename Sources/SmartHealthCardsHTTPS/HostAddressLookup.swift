#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOPosix

/// Resolves a host name (or reads an IP literal) to its addresses with the system resolver
/// (`getaddrinfo`), on NIO's blocking-I/O thread pool so no cooperative thread waits on DNS.
enum HostAddressLookup {
    /// Why a host could not be resolved.
    struct Failure: Error, Sendable {
        let reason: String
    }

    /// Every address `host` resolves to (IPv4 and IPv6). `host` is a name, an IPv4 literal, or
    /// an IPv6 literal with or without its brackets.
    static func addresses(of host: String) async throws -> [NetworkAddress] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        let lookupName = name
        return try await NIOThreadPool.singleton.runIfActive {
            try resolve(lookupName)
        }
    }

    private static func resolve(_ name: String) throws -> [NetworkAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(reason: "the issuer's host name could not be resolved")
        }
        defer { freeaddrinfo(first) }
        var addresses: [NetworkAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let socketAddress = entry.pointee.ai_addr {
                switch Int32(socketAddress.pointee.sa_family) {
                case AF_INET:
                    let bytes = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                    }
                    if let address = NetworkAddress(bytes: bytes) { addresses.append(address) }
                case AF_INET6:
                    let bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    }
                    if let address = NetworkAddress(bytes: bytes) { addresses.append(address) }
                default:
                    break
                }
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw Failure(reason: "the issuer's host name has no address") }
        return addresses
    }
}
