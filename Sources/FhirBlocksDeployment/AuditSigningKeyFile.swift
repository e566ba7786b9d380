import CommonSupport
import FhirBlocks

/// The audit log's P-256 signing key, kept as `audit-key.pem` (PKCS #8 PEM) in the server's data
/// folder: created once with mode 0600 from its first byte, never written over, and read only
/// when it is a private regular file of the current user (``ServerKeyFile``): the server that
/// signs with it and `health audit verify`, which reads its public key, check it the same way.
public enum AuditSigningKeyFile {
    /// The key file's name in the data folder.
    public static let fileName = "audit-key.pem"

    /// Why the key could not be loaded or created. The message names the file, never the key.
    public typealias Failure = ServerKeyFile.Failure

    /// The key in `folder` (created with the folder, mode 0700, when missing). Two servers
    /// starting together agree on one key: the file is linked into place only if absent.
    public static func loadOrCreate(in folder: String) throws(Failure) -> CsiSigningKey {
        try ServerKeyFile.loadOrCreate(path: folder + "/" + fileName, folder: folder,
                                       generate: { let key = CsiSigningKey.generate(); return (key, Array(key.pem.utf8)) },
                                       decode: decode)
    }

    /// The key in `folder`, which must exist (nothing is created): for a reader of the server's
    /// audit log, refused for the same reasons as ``loadOrCreate(in:)`` refuses it.
    /// - Parameter folder: The server's data folder.
    public static func load(in folder: String) throws(Failure) -> CsiSigningKey {
        try ServerKeyFile.load(path: folder + "/" + fileName, decode: decode)
    }

    private static func decode(_ bytes: [UInt8]) -> CsiSigningKey? {
        try? CsiSigningKey(pem: String(decoding: bytes, as: UTF8.self))
    }
}
