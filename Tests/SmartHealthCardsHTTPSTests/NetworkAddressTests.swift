import Testing
@testable import SmartHealthCardsHTTPS

/// Which addresses count as public, and that host names and literals resolve to them.
@Suite struct NetworkAddressTests {
    static func v4(_ text: String) -> NetworkAddress? {
        NetworkAddress(bytes: text.split(separator: ".").compactMap { UInt8($0) })
    }

    static func v6(_ groups: [UInt16]) -> NetworkAddress? {
        NetworkAddress(bytes: groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
    }

    @Test(arguments: ["0.0.0.0", "10.1.2.3", "100.64.0.1", "100.127.255.254", "127.0.0.1", "127.9.9.9", "169.254.169.254",
                      "172.16.0.1", "172.31.255.255", "192.168.1.1", "192.0.0.8", "192.0.2.1", "198.18.0.1", "198.51.100.7",
                      "203.0.113.9", "192.88.99.1", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255"])
    func nonPublicIPv4(_ text: String) throws {
        #expect(try #require(Self.v4(text)).isPublic == false)
    }

    @Test(arguments: ["1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.1", "172.15.0.1", "172.32.0.1", "192.169.0.1",
                      "198.17.0.1", "198.20.0.1", "223.255.255.255"])
    func publicIPv4(_ text: String) throws {
        #expect(try #require(Self.v4(text)).isPublic)
    }

    @Test func ipv6() throws {
        let nonPublic: [[UInt16]] = [
            [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 1],                   // unspecified, loopback
            [0xfc00, 0, 0, 0, 0, 0, 0, 1], [0xfd12, 0x3456, 0, 0, 0, 0, 0, 1],    // unique local
            [0xfe80, 0, 0, 0, 0, 0, 0, 1], [0xfebf, 0, 0, 0, 0, 0, 0, 1],         // link-local
            [0xfec0, 0, 0, 0, 0, 0, 0, 1], [0xff02, 0, 0, 0, 0, 0, 0, 1],         // site-local, multicast
            [0x2001, 0x0db8, 0, 0, 0, 0, 0, 1],                                    // documentation
            [0, 0, 0, 0, 0, 0xffff, 0x7f00, 0x0001],                               // ::ffff:127.0.0.1
            [0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0001],                               // ::ffff:10.0.0.1
            [0x64, 0xff9b, 0, 0, 0, 0, 0xc0a8, 0x0001],                            // 64:ff9b::192.168.0.1
            [0x64, 0xff9b, 1, 0, 0, 0, 0x0808, 0x0808],                            // local-use NAT64
            [0x2002, 0x0a00, 0x0001, 0, 0, 0, 0, 1],                               // 6to4 of 10.0.0.1
        ]
        for groups in nonPublic {
            #expect(try #require(Self.v6(groups)).isPublic == false, "\(groups)")
        }
        let publicOnes: [[UInt16]] = [[0x2606, 0x4700, 0, 0, 0, 0, 0, 0x1111], [0, 0, 0, 0, 0, 0xffff, 0x0808, 0x0808],
                                      [0x64, 0xff9b, 0, 0, 0, 0, 0x0101, 0x0101], [0xfe00, 0, 0, 0, 0, 0, 0, 1],
                                      [0x2002, 0x0808, 0x0808, 0, 0, 0, 0, 1]]
        for groups in publicOnes {
            #expect(try #require(Self.v6(groups)).isPublic, "\(groups)")
        }
        #expect(NetworkAddress(bytes: [1, 2, 3]) == nil)
    }

    @Test func literalsAndLocalNamesResolve() async throws {
        #expect(try await HostAddressLookup.addresses(of: "127.0.0.1").map(\.description) == ["127.0.0.1"])
        #expect(try await HostAddressLookup.addresses(of: "[::1]").allSatisfy { !$0.isPublic })
        #expect(try await HostAddressLookup.addresses(of: "localhost").allSatisfy { !$0.isPublic })
        await #expect(throws: HostAddressLookup.Failure.self) { _ = try await HostAddressLookup.addresses(of: "no-such-host.invalid") }
    }
}
