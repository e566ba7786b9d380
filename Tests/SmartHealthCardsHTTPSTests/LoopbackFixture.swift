import Foundation
import HTTPTestSupport
import TestSupport
@_spi(Testing) @testable import SmartHealthCardsHTTPS

/// A running loopback server, its authority, and resolvers that trust it; stopped by
/// ``withLoopbackServer(_:)``.
struct LoopbackFixture: Sendable {
    let server: LoopbackServer
    let authority: TestCertificateAuthority

    /// The issuer URL the tests use: `https://127.0.0.1:<port>/issuer`.
    var issuer: String { server.url("/issuer") }

    /// The JWKS path of ``issuer``.
    let keySetPath = "/issuer/.well-known/jwks.json"

    /// The CRL path of ``issuer`` for `kid`.
    func revocationListPath(_ kid: String) -> String { "/issuer/.well-known/crl/\(kid).json" }

    /// A resolver trusting the test authority, with timeouts a loaded full run stays within unless told otherwise, and
    /// allowed to fetch from the loopback server.
    func resolver(_ configuration: HTTPSKeyResolver.Configuration = .init(requestTimeout: .seconds(300), connectTimeout: .seconds(120)),
                  clock: TestClock? = nil) -> HTTPSKeyResolver {
        var configuration = configuration
        configuration.allowsPrivateAddresses = true
        return HTTPSKeyResolver(configuration: configuration, additionalTrustRoots: [authority.root],
                                now: { clock?.now ?? Date() })
    }
}

/// Runs `body` with a fresh loopback HTTPS server, stopping it afterwards whatever happens.
func withLoopbackServer(_ body: (LoopbackFixture) async throws -> Void) async throws {
    let authority = try TestCertificateAuthority.make()
    let server = try await LoopbackServer(authority: authority)
    do {
        try await body(LoopbackFixture(server: server, authority: authority))
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
