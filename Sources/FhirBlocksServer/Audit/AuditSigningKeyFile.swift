import CommonSupport
import FhirBlocks

/// The audit log's P-256 signing key, kept as `audit-key.pem` (PKCS #8 PEM) in the server's data
/// folder: created once with mode 0600 from its first byte, never written over, and read only
/// when it is a private regular file of the current user.
public enum AuditSigningKeyFile {
    /// The key file's name in the data folder.
    public static let fileName = "audit-key.pem"

    /// Why the key could not be loaded or created. The message names the file, never the key.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The folder or file could not be created, or the file could not be read safely (open
        /// to other users, not a regular file, another user's).
        case unusable(String)
        /// The file is not a P-256 private key in PEM.
        case notAKey(path: String)

        public var description: String {
            switch self {
            case .unusable(let reason): reason
            case .notAKey(let path): "\(path) is not a P-256 private key in PEM"
            }
        }
    }

    /// The key in `folder` (created with the folder, mode 0700, when missing). Two servers
    /// starting together agree on one key: the file is linked into place only if absent.
    public static func loadOrCreate(in folder: String) throws(Failure) -> CsiSigningKey {
        let path = folder + "/" + fileName
        let bytes: [UInt8]
        do {
            try SecretFile.createFolder(folder)
            bytes = try SecretFile.load(path, maximumSize: 8192)
        } catch .missing {
            return try create(at: path)
        } catch {
            throw .unusable("\(error)")
        }
        return try key(from: bytes, path: path)
    }

    /// Creates the key file; when another process created it first, its key is used.
    private static func create(at path: String) throws(Failure) -> CsiSigningKey {
        let key = CsiSigningKey.generate()
        do {
            try SecretFile.save(Array(key.pem.utf8), to: path, replacing: false)
            return key
        } catch .alreadyExists {
            let bytes: [UInt8]
            do { bytes = try SecretFile.load(path, maximumSize: 8192) } catch { throw .unusable("\(error)") }
            return try self.key(from: bytes, path: path)
        } catch {
            throw .unusable("\(error)")
        }
    }

    private static func key(from bytes: [UInt8], path: String) throws(Failure) -> CsiSigningKey {
        guard let key = try? CsiSigningKey(pem: String(decoding: bytes, as: UTF8.self)) else { throw .notAKey(path: path) }
        return key
    }
}
