import Foundation
import SmartHealthCards

/// The SMART Health Cards issuer key of `$health-cards-issue`: an ES256 P-256 key kept as a
/// private JWK (`card-issuer-key.json` in the server's data folder by default, beside the audit
/// key), created on first start with mode 0600 from its first byte and never written over
/// (``ServerKeyFile``). Its public JWK is served at `/.well-known/jwks.json`.
public enum HealthCardIssuerKeyFile {
    /// The key file's name in the data folder.
    public static let fileName = "card-issuer-key.json"

    /// Why the key could not be loaded or created. The message names the file, never the key.
    public typealias Failure = ServerKeyFile.Failure

    /// The key at `path` (created, and its folder with mode 0700, when missing).
    public static func loadOrCreate(at path: String) throws(Failure) -> SHCIssuerKey {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try ServerKeyFile.loadOrCreate(path: path, folder: folder,
                                              generate: { let key = SHCIssuerKey.generate(); return (key, key.privateJWK) },
                                              decode: { try? SHCIssuerKey(privateJWKBytes: $0) })
    }
}
