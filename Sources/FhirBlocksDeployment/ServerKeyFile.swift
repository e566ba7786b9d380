import CommonSupport

/// A server's private key kept in one file: created once with mode 0600 from its first byte
/// (its folder 0700), never written over, and read only when it is a private regular file of
/// the current user. Two servers starting together agree on one key: the file is linked into
/// place only if absent, and the loser reads the winner's. ``AuditSigningKeyFile`` and
/// ``HealthCardIssuerKeyFile`` keep their keys this way.
public enum ServerKeyFile {
    /// Why a key could not be loaded or created. The message names the file, never the key.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The folder or file could not be created, or the file could not be read safely (open
        /// to other users, not a regular file, another user's).
        case unusable(String)
        /// The file does not hold a key of the expected kind.
        case notAKey(path: String)

        public var description: String {
            switch self {
            case .unusable(let reason): reason
            case .notAKey(let path): "\(path) is not a P-256 private key of the expected form"
            }
        }
    }

    /// The key at `path`, created in `folder` (with the folder, when missing) by `generate`,
    /// which returns the key and the bytes to store; `decode` reads stored bytes.
    static func loadOrCreate<Key>(path: String, folder: String, generate: () -> (key: Key, bytes: [UInt8]),
                                  decode: ([UInt8]) -> Key?) throws(Failure) -> Key {
        let bytes: [UInt8]
        do {
            try SecretFile.createFolder(folder)
            bytes = try SecretFile.load(path, maximumSize: 8192)
        } catch .missing {
            let (key, newBytes) = generate()
            do {
                try SecretFile.save(newBytes, to: path, replacing: false)
                return key
            } catch .alreadyExists {
                // Another process created it first: its key is the one.
                do { bytes = try SecretFile.load(path, maximumSize: 8192) } catch { throw .unusable("\(error)") }
            } catch {
                throw .unusable("\(error)")
            }
        } catch {
            throw .unusable("\(error)")
        }
        guard let key = decode(bytes) else { throw .notAKey(path: path) }
        return key
    }

    /// The key at `path`, which must exist, read with the same checks as
    /// `loadOrCreate(path:folder:generate:decode:)`; nothing is created.
    static func load<Key>(path: String, decode: ([UInt8]) -> Key?) throws(Failure) -> Key {
        let bytes: [UInt8]
        do { bytes = try SecretFile.load(path, maximumSize: 8192) } catch { throw .unusable("\(error)") }
        guard let key = decode(bytes) else { throw .notAKey(path: path) }
        return key
    }
}
