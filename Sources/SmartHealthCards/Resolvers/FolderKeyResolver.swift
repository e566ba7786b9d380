import CommonSupport
import Foundation

/// Keys read from folders laid out like an issuer's web root: `<folder>/.well-known/jwks.json` and
/// optionally `<folder>/.well-known/crl/<kid>.json`, one folder per issuer URL.
///
/// Files are read on every call, so a folder can be updated while the resolver is in use.
public struct FolderKeyResolver: IssuerKeyResolver {
    private let folders: [String: URL]

    /// Creates a resolver from the folder of each issuer URL.
    public init(_ folders: [String: URL]) {
        self.folders = folders
    }

    /// Reads `<folder>/.well-known/jwks.json` of `issuer`; nil when no folder is configured for it.
    public func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet? {
        guard let folder = folders[issuer] else { return nil }
        let url = folder.appendingPathComponent(".well-known").appendingPathComponent("jwks.json")
        let bytes = try Self.read(url, issuer: issuer)
        do {
            return try SHCJWKSet(jsonBytes: bytes)
        } catch {
            throw .malformedKeySet(issuer: issuer, error)
        }
    }

    /// Reads `<folder>/.well-known/crl/<kid>.json`; nil when the issuer has no folder or the file
    /// does not exist. A `kid` that is not base64url is never used in a path.
    public func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList? {
        guard let folder = folders[issuer], !kid.isEmpty, kid.utf8.allSatisfy(Base64URL.isAlphabet) else { return nil }
        let url = folder.appendingPathComponent(".well-known").appendingPathComponent("crl")
            .appendingPathComponent("\(kid).json")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let bytes = try Self.read(url, issuer: issuer)
        do {
            return try SHCRevocationList(jsonBytes: bytes)
        } catch {
            throw .malformedRevocationList(issuer: issuer, kid: kid, error)
        }
    }

    private static func read(_ url: URL, issuer: String) throws(SHCResolverError) -> [UInt8] {
        do {
            return Array(try Data(contentsOf: url))
        } catch {
            throw .unreadable(issuer: issuer, resource: url.path, reason: "file not readable")
        }
    }
}
