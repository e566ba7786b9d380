import ExactJSON
import Foundation
import Testing
import TestSupport
@testable import SmartHealthCards

/// Cross-checks issued cards with an independent implementation: scripts/shc-verify.py (Python
/// jwcrypto + zlib). Runs only when OPENHEALTHKIT_PEERS_VENV names a virtual environment with
/// jwcrypto installed (`python3 -m venv DIR && DIR/bin/pip install jwcrypto`).
@Suite(.enabled(if: PythonPeer.python != nil && Peer.script != nil,
                "set OPENHEALTHKIT_PEERS_VENV to a Python venv with jwcrypto (pip install jwcrypto) to run the peer cross-check"))
struct PeerTests {
    @Test(arguments: 0..<3)
    func peerVerifiesIssuedCards(round: Int) async throws {
        let key = SHCIssuerKey.generate()
        let issuer = try SHCIssuer(key: key, issuer: TestCards.issuer)
        let bundle = TestCards.bundle.setting(["entry", 1, "resource", "lotNumber"], .string("LOT-\(round)-é"))
        let jws = try issuer.issue(bundle: bundle, nbf: Date(timeIntervalSince1970: TestCards.nbf + Double(round)),
                                   exp: round == 2 ? Date(timeIntervalSince1970: 1_900_000_000.5) : nil, rid: round == 1 ? "R1d" : nil)
        let (status, payload) = try Peer.run(jws: jws, jwks: key.publicJWKS)
        #expect(status == 0)
        // The payload the peer inflated is the one this library reports, and it round-trips.
        let report = await SHCVerifier(resolver: StaticKeyResolver([TestCards.issuer: SHCJWKSet(keys: [key.publicJWK])]),
                                       now: TestCards.now).verify(jws)
        #expect(report.isValid)
        #expect(report.payloadJSON == payload)
        let parsed = try SHCLimits.default.parseJSON(payload)
        #expect(parsed["vc"]?["credentialSubject"]?["fhirBundle"] == bundle)
    }

    @Test func peerRejectsATamperedCardAndAnotherKey() throws {
        let key = SHCIssuerKey.generate()
        let jws = try SHCIssuer(key: key, issuer: TestCards.issuer).issue(bundle: TestCards.bundle, nbf: Date(timeIntervalSince1970: TestCards.nbf))
        #expect(try Peer.run(jws: jws, jwks: SHCIssuerKey.generate().publicJWKS).status == 1)
        var tampered = Array(jws.utf8)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(try Peer.run(jws: String(decoding: tampered, as: UTF8.self), jwks: key.publicJWKS).status == 1)
    }
}

/// The Python peer: where it is and how to run it.
enum Peer {
    static let script: URL? = {
        guard let root = Fixtures.repositoryRoot else { return nil }
        let script = root.appendingPathComponent("scripts/shc-verify.py")
        return FileManager.default.fileExists(atPath: script.path) ? script : nil
    }()

    /// Runs the peer; returns its exit status and standard output.
    static func run(jws: String, jwks: [UInt8]) throws -> (status: Int32, output: [UInt8]) {
        guard let script else { return (2, []) }   // the suite runs only when the script is there
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shc-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let jwksURL = folder.appendingPathComponent("jwks.json"), jwsURL = folder.appendingPathComponent("card.jws")
        try Data(jwks).write(to: jwksURL)
        try Data(jws.utf8).write(to: jwsURL)
        return try PythonPeer.run(script, ["--jwks", jwksURL.path, jwsURL.path])
    }
}
