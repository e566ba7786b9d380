import FhirBlocksDeployment
import FhirBlocksServer
import Foundation
import SmartHealthCards
import Testing

@Suite("The health card issuer key file")
struct HealthCardIssuerKeyFileTests {
    @Test("Created once as a private JWK (0600, folder 0700), the same key later; a bad file is refused and left alone")
    func createdKeptAndChecked() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("card-key-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/keys/" + HealthCardIssuerKeyFile.fileName
        let first = try HealthCardIssuerKeyFile.loadOrCreate(at: path)
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((try FileManager.default.attributesOfItem(atPath: root + "/keys")[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        // The file is the private JWK (kid = RFC 7638 thumbprint), read back as the same key.
        let stored = try SHCIssuerKey(privateJWKBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(stored.kid == first.kid)
        #expect(try HealthCardIssuerKeyFile.loadOrCreate(at: path).kid == first.kid)

        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        #expect { try HealthCardIssuerKeyFile.loadOrCreate(at: path) } throws: { "\($0)".contains("chmod 600") }
        try Data(#"{"kty":"EC"}"#.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect(throws: HealthCardIssuerKeyFile.Failure.notAKey(path: path)) { try HealthCardIssuerKeyFile.loadOrCreate(at: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(#"{"kty":"EC"}"#.utf8))
    }

    @Test("The deployment creates it beside the audit key, or where it is told, and keeps it")
    func deployment() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("card-deployment-\(UUID().uuidString)/data").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: folder).deletingLastPathComponent().path) }
        let first = try await TrustServerDeployment.open(dataDirectory: folder, configuration: ServerConfiguration())
        let kid = try #require(first.service.cardIssuerKey?.kid)
        await first.close()
        #expect(try HealthCardIssuerKeyFile.loadOrCreate(at: folder + "/" + HealthCardIssuerKeyFile.fileName).kid == kid)
        let elsewhere = folder + "-keys/issuer.json"
        let second = try await TrustServerDeployment.open(dataDirectory: folder, configuration: ServerConfiguration(),
                                                          cardIssuerKeyPath: elsewhere)
        let otherKid = second.service.cardIssuerKey?.kid
        await second.close()
        #expect(otherKid != nil && otherKid != kid)
        #expect(try HealthCardIssuerKeyFile.loadOrCreate(at: elsewhere).kid == otherKid)
    }
}
