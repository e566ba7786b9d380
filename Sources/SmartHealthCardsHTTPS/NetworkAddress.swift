/// An IPv4 or IPv6 address as bytes, and whether it belongs to the public internet.
///
/// An issuer's documents are fetched only from public addresses unless the caller allows more
/// (``HTTPSKeyResolver/Configuration/allowsPrivateAddresses``): a card is untrusted input, and
/// its `iss` must not make the verifier connect to the verifying machine itself or its local
/// network.
struct NetworkAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), in network order.
    let bytes: [UInt8]

    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Whether the address is a public unicast address: not unspecified, loopback, private
    /// (RFC 1918, RFC 4193), shared (RFC 6598), link-local, multicast, broadcast, reserved, or
    /// set aside for documentation and benchmarking. An IPv4-mapped, IPv4-compatible or NAT64
    /// IPv6 address is judged by the IPv4 address it carries.
    var isPublic: Bool {
        bytes.count == 4 ? Self.isPublicIPv4(bytes[0], bytes[1], bytes[2]) : isPublicIPv6
    }

    private static func isPublicIPv4(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> Bool {
        switch a {
        case 0, 10, 127: return false                          // this network, private, loopback
        case 100 where (64...127).contains(b): return false    // shared address space (CGNAT)
        case 169 where b == 254: return false                  // link-local
        case 172 where (16...31).contains(b): return false     // private
        case 192 where b == 168: return false                  // private
        case 192 where b == 0 && (c == 0 || c == 2): return false   // IETF protocol assignments, TEST-NET-1
        case 192 where b == 88 && c == 99: return false        // 6to4 relay anycast (deprecated)
        case 198 where b == 18 || b == 19: return false        // benchmarking
        case 198 where b == 51 && c == 100: return false       // TEST-NET-2
        case 203 where b == 0 && c == 113: return false        // TEST-NET-3
        case 224...255: return false                           // multicast, reserved, broadcast
        default: return true
        }
    }

    private var isPublicIPv6: Bool {
        let prefix = bytes.prefix(12)
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated; :: and ::1 included).
        if prefix.dropLast(2).allSatisfy({ $0 == 0 }) && (bytes[10] == 0xFF && bytes[11] == 0xFF || bytes[10] == 0 && bytes[11] == 0) {
            return Self.isPublicIPv4(bytes[12], bytes[13], bytes[14])
        }
        // 64:ff9b::a.b.c.d (NAT64).
        if bytes[0] == 0x00, bytes[1] == 0x64, bytes[2] == 0xFF, bytes[3] == 0x9B, bytes[4..<12].allSatisfy({ $0 == 0 }) {
            return Self.isPublicIPv4(bytes[12], bytes[13], bytes[14])
        }
        // 64:ff9b:1::/48 (local-use NAT64, RFC 8215): a local network's translator.
        if bytes[0] == 0x00, bytes[1] == 0x64, bytes[2] == 0xFF, bytes[3] == 0x9B, bytes[4] == 0x00, bytes[5] == 0x01 { return false }
        // 2002:a.b.c.d::/48 (6to4): judged by the IPv4 address it carries.
        if bytes[0] == 0x20, bytes[1] == 0x02 { return Self.isPublicIPv4(bytes[2], bytes[3], bytes[4]) }
        if bytes[0] & 0xFE == 0xFC { return false }                  // unique local fc00::/7
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return false } // link-local fe80::/10
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0xC0 { return false } // site-local fec0::/10 (deprecated)
        if bytes[0] == 0xFF { return false }                          // multicast
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0x0D, bytes[3] == 0xB8 { return false } // documentation
        return true
    }

    var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}
