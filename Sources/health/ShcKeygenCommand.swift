import CommonSupport
import ArgumentParser
import Foundation
import SmartHealthCards

/// `health shc keygen --out DIR`: a new P-256 issuer key.
struct ShcKeygenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Create an issuer signing key: DIR/issuer.private.jwk (mode 0600) and DIR/.well-known/jwks.json.",
        discussion: "Publish DIR/.well-known/ at your issuer URL. An existing jwks.json keeps its keys; the new key is added.")

    @Option(help: ArgumentHelp("The issuer folder to write into.", valueName: "DIR"))
    var out: String

    func run() async throws {
        let folder = URL(fileURLWithPath: out)
        let key = SHCIssuerKey.generate()
        let privateFile = folder.appendingPathComponent("issuer.private.jwk")
        do {
            try SecretFile.createFolder(folder.path)
            // Never over an existing key: the kernel refuses an existing file (no check-then-write race).
            try key.writePrivateJWK(to: privateFile)
            try SHCWellKnownFolder(root: folder).publish(keys: [key.publicJWK])
        } catch SHCFileError.alreadyExists {
            throw UsageError("\(privateFile.path) already exists: move it away or choose another --out")
        } catch {
            throw UsageError("cannot write the key into \(folder.path): \(error)")
        }
        print("kid: \(key.kid)")
        print("private key: \(privateFile.path)")
        print("public keys: \(folder.appendingPathComponent(".well-known/jwks.json").path)")
    }
}
