import ArgumentParser
import CommonSupport
import Crypto
import Foundation
import OpenHealthKit
import SampleSignatures

/// `health store device-keys …`: the device keys whose sample signatures the owner trusts.
struct StoreDeviceKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device-keys",
        abstract: "Create, register, list and remove the device keys that sign samples.",
        discussion: """
            Examples:
              health store device-keys generate --out meter.key.pem > meter.pub.pem
              health store device-keys add meter.pub.pem --name "Glucose meter"
              health store add --type bloodGlucose --value 97 --unit mg/dL --sign-with meter.key.pem
              health store query --type bloodGlucose --verify-signatures
            """,
        subcommands: [StoreDeviceKeysGenerateCommand.self, StoreDeviceKeysAddCommand.self, StoreDeviceKeysListCommand.self,
                      StoreDeviceKeysRemoveCommand.self])
}

/// `health store device-keys generate --out FILE`: a new P-256 device key.
struct StoreDeviceKeysGenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Create a device signing key: the private key in FILE (PKCS #8 PEM, mode 0600), the public key (PEM) on standard output.")

    @Option(help: ArgumentHelp("Where to write the private key (never over an existing file).", valueName: "FILE"))
    var out: String

    func run() async throws {
        let key = P256.Signing.PrivateKey()
        do {
            try SecretFile.save(Array(key.pemRepresentation.utf8), to: out, replacing: false)
        } catch {
            throw UsageError("cannot write the key to \(out): \(error)")
        }
        try? FileHandle.standardError.write(contentsOf: Data("key \(DeviceKeyIdentifier(key.publicKey)) written to \(out)\n".utf8))
        print(key.publicKey.pemRepresentation)
    }
}

/// `health store device-keys add PUBLIC.pem --name NAME`: trusts a device key.
struct StoreDeviceKeysAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Trust a device's public key (PEM, as `generate` prints it) for sample signatures.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The public key file (PEM SubjectPublicKeyInfo, P-256).", valueName: "PUBLIC.pem"))
    var publicKeyFile: String

    @Option(help: "A name for the device.")
    var name: String

    func run() async throws {
        // A public key: any readable file (no secret-file permission checks), of a sane size.
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: publicKeyFile))
        } catch {
            throw UsageError("cannot read \(publicKeyFile): \(error.localizedDescription)")
        }
        guard data.count <= 16_384, let text = String(data: data, encoding: .utf8), let publicKey = try? P256.Signing.PublicKey(pemRepresentation: text) else {
            throw InputRefused("\(publicKeyFile) is not a P-256 public key in PEM")
        }
        let key = try await storeOptions.openStore().registerDeviceKey(publicKey, name: name)
        print("Trusted \(key.identifier) (\(key.name))")
    }
}

/// `health store device-keys list`.
struct StoreDeviceKeysListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the trusted device keys.")

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let keys = try await storeOptions.openStore().deviceSigningKeys()
        if keys.isEmpty { print("No device keys.") }
        for key in keys { print("\(key.identifier)  \(key.name)  registered \(isoDate(key.registeredAt))") }
    }
}

/// `health store device-keys remove ID`.
struct StoreDeviceKeysRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Stop trusting a device key.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The key identifier (hexadecimal, as `list` prints it).", valueName: "ID"))
    var identifier: String

    func run() async throws {
        guard let identifier = DeviceKeyIdentifier(hex: identifier) else { throw UsageError("'\(self.identifier)' is not a hexadecimal key identifier") }
        guard try await storeOptions.openStore().removeDeviceKey(identifier) else {
            throw InputRefused("no device key \(identifier) is registered")
        }
        print("Removed \(identifier)")
    }
}

/// Loads a device's private key (PKCS #8 or SEC 1 PEM) for `--sign-with`.
func loadDeviceKey(_ path: String) throws -> P256.Signing.PrivateKey {
    let bytes: [UInt8]
    do {
        bytes = try SecretFile.load(path, maximumSize: 16_384)
    } catch {
        throw UsageError("cannot read \(path): \(error)")
    }
    guard let key = try? P256.Signing.PrivateKey(pemRepresentation: String(decoding: bytes, as: UTF8.self)) else {
        throw UsageError("\(path) is not a P-256 private key in PEM")
    }
    return key
}

/// One line per sample for `health store query --verify-signatures`.
func signatureReport(_ sample: HKSample, _ verdict: SampleSignatureVerdict) -> String {
    let detail: String
    switch verdict {
    case .unsigned: detail = ""
    case .valid(let signer): detail = "key \(signer)"
    case .unknownKey(let signer): detail = "key \(signer) is not trusted"
    case .badSignature(let signer): detail = "the signature of key \(signer) does not verify"
    case .contentMismatch(let signer, let field): detail = "key \(signer) signed another \(field.rawValue)"
    case .unsupportedAlgorithm(let oid): detail = "algorithm \(oid)"
    case .malformed(let error): detail = error.message
    }
    return "\(sample.uuid.uuidString)  \(verdict.label)" + (detail.isEmpty ? "" : "  \(detail)")
}
