import CommonSupport
import Crypto
import CryptoExtras
import Foundation

/// Where the key that seals a store's records comes from.
///
/// Every sample value, all metadata and device details are sealed with AES-GCM under a key
/// derived from this. What queries need to find rows (type, times, source, UUID) stays in
/// the clear; see docs/store-and-security.md.
public enum StoreKey: Sendable {
    /// A 32-byte key kept in a file the user owns (created with mode 0600 when missing).
    case keyFile(URL)
    /// A passphrase, stretched with PBKDF2-HMAC-SHA256; the salt and round count are stored
    /// with the database.
    case passphrase(String)
    /// A raw 256-bit key supplied by the caller.
    case key(SymmetricKey)

    /// The default: `OPENHEALTHKIT_PASSPHRASE` if set, else `OPENHEALTHKIT_KEY_FILE`, else a key
    /// file named `health.key` beside the database.
    static func fromEnvironment(databaseDirectory: URL) -> StoreKey {
        let environment = ProcessInfo.processInfo.environment
        if let passphrase = environment["OPENHEALTHKIT_PASSPHRASE"], !passphrase.isEmpty {
            return .passphrase(passphrase)
        }
        if let path = environment["OPENHEALTHKIT_KEY_FILE"], !path.isEmpty {
            return .keyFile(URL(fileURLWithPath: path))
        }
        return .keyFile(databaseDirectory.appendingPathComponent("health.key"))
    }
}

/// The parameters of the passphrase KDF, stored in the database so a later open can derive
/// the same key.
struct KeyDerivationParameters: Codable, Sendable, Equatable {
    var algorithm: String
    var rounds: Int
    var salt: Data

    static let defaultRounds = 210_000
    static let maximumRounds = 10_000_000

    static func fresh() -> KeyDerivationParameters {
        KeyDerivationParameters(algorithm: "PBKDF2-HMAC-SHA256", rounds: defaultRounds,
                                salt: Data(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }))
    }
}

extension StoreKey {
    /// Resolves the master key. A missing key file is created only when `createIfMissing`
    /// (that is, when the database itself is new); otherwise it is an error, never a new key
    /// that would silently make the existing data unreadable.
    func masterKey(parameters: KeyDerivationParameters?, createIfMissing: Bool) throws -> SymmetricKey {
        switch self {
        case .key(let key):
            guard key.bitCount == 256 else {
                throw HealthStoreError(.keyUnavailable, "the store key must be 256 bits, not \(key.bitCount)")
            }
            return key
        case .passphrase(let passphrase):
            guard let parameters else {
                throw HealthStoreError(.keyUnavailable, "no key-derivation parameters stored for a passphrase")
            }
            // Bounded both ways: a tampered store must not weaken the key nor stall the open.
            guard parameters.algorithm == "PBKDF2-HMAC-SHA256",
                  (KeyDerivationParameters.defaultRounds...KeyDerivationParameters.maximumRounds).contains(parameters.rounds),
                  parameters.salt.count >= 16 else {
                throw HealthStoreError(.unsupportedSchema, "unknown key derivation \(parameters.algorithm)")
            }
            do {
                return try KDF.Insecure.PBKDF2.deriveKey(from: Array(passphrase.utf8), salt: parameters.salt,
                                                         using: .sha256, outputByteCount: 32, rounds: parameters.rounds)
            } catch {
                throw HealthStoreError(.keyUnavailable, "passphrase key derivation failed: \(error)")
            }
        case .keyFile(let url):
            // A key others can read is no secret: it is refused, as identity files are
            // (SecretFile checks the owner, the mode and that it is a regular file).
            do {
                let data = Data(try SecretFile.load(url.path, maximumSize: 4096))
                let trimmed = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                if data.count == 32 { return SymmetricKey(data: data) }
                if let decoded = Base64URL.decodeStandard(trimmed), decoded.count == 32 { return SymmetricKey(data: decoded) }
                throw HealthStoreError(.keyUnavailable, "key file \(url.path) does not hold a 256-bit key")
            } catch let error as SecretFileError {
                guard case .missing = error else {
                    throw HealthStoreError(.keyUnavailable, "key file: \(error)")
                }
            }
            guard createIfMissing else {
                throw HealthStoreError(.keyUnavailable, "key file \(url.path) is missing; the store cannot be opened without it")
            }
            let key = SymmetricKey(size: .bits256)
            // Mode 0600 from the first byte, never over a key another process just wrote
            // (SecretFile: exclusive temporary file, fsync, link): if one did, its key is used.
            do {
                try SecretFile.createFolder(url.deletingLastPathComponent().path)
                try SecretFile.save(Data((key.withUnsafeBytes { Base64URL.encodeStandard($0) } + "\n").utf8), to: url.path, replacing: false)
            } catch .alreadyExists {
                return try masterKey(parameters: parameters, createIfMissing: false)
            } catch {
                throw HealthStoreError(.keyUnavailable, "cannot create key file: \(error)")
            }
            return key
        }
    }

    var needsDerivationParameters: Bool {
        if case .passphrase = self { return true }
        return false
    }
}
