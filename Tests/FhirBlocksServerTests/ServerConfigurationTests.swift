import FhirBlocks
import FhirBlocksServer
import Testing

/// Where each protocol mode may be served.
@Suite struct ServerConfigurationTests {
    @Test func compatIsServedOnlyOnLoopbackOrBehindTLS() {
        let compat = ServerConfiguration(mode: .compat)
        for host in ["127.0.0.1", "127.0.0.2", "localhost", "::1"] {
            #expect(compat.transportProblem(host: host) == nil, "\(host)")
        }
        for host in ["0.0.0.0", "192.168.1.10", "::", "example.org"] {
            #expect(compat.transportProblem(host: host) != nil, "\(host)")
        }
        #expect(ServerConfiguration(mode: .compat, publicURL: "https://fhirblocks.example.org").transportProblem(host: "0.0.0.0") == nil)
        #expect(ServerConfiguration(mode: .compat, publicURL: "http://fhirblocks.example.org").transportProblem(host: "0.0.0.0") != nil)
        #expect(ServerConfiguration(mode: .strict).transportProblem(host: "0.0.0.0") == nil)
    }

    @Test func theApplicationRefusesCompatOnThePlainNetwork() async throws {
        // No https public URL: nothing says a TLS proxy is in front (the check fails before any bind).
        let world = try await TestWorld.make(.sqlite, mode: .compat, publicURL: nil)
        let application = FhirBlocksApplication(service: world.service, host: "0.0.0.0", port: 0)
        await #expect(throws: FhirBlocksApplication.TransportRefused.self) { try await application.run() }
        await world.close()
    }
}
