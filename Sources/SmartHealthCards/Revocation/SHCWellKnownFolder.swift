import CommonSupport
import Foundation

/// An issuer's published folder, laid out as served under `<iss>`: `.well-known/jwks.json` and
/// `.well-known/crl/<kid>.json` (rules 5 and 41). Maintains revocation: each update rewrites the
/// CRL with `ctr` incremented and sets the key's `crlVersion` in the JWKS to match.
///
/// ``FolderKeyResolver`` reads the same layout.
public struct SHCWellKnownFolder: Sendable {
    /// The folder that holds `.well-known`.
    public let root: URL

    /// Uses `root` as the issuer's web root.
    public init(root: URL) {
        self.root = root
    }

    private var wellKnown: URL { root.appendingPathComponent(".well-known") }
    private var jwksURL: URL { wellKnown.appendingPathComponent("jwks.json") }

    private func crlURL(kid: String) throws(SHCFileError) -> URL {
        guard !kid.isEmpty, kid.utf8.allSatisfy(Base64URL.isAlphabet) else { throw .writeFailed(path: "crl/<invalid kid>.json") }
        return wellKnown.appendingPathComponent("crl").appendingPathComponent("\(kid).json")
    }

    /// Publishes the public keys (creating the folders), merging with keys already published:
    /// a key with the same `kid` is replaced, others are kept (old keys stay published while their
    /// cards are relevant, rule 8).
    public func publish(keys: [SHCJWK]) throws(SHCFileError) {
        var keySet = try existingKeySet() ?? SHCJWKSet(keys: [])
        for key in keys {
            if let index = keySet.keys.firstIndex(where: { $0.kid == key.kid }) {
                keySet.keys[index] = key
            } else {
                keySet.keys.append(key)
            }
        }
        try write(keySet.serialized(), to: jwksURL)
    }

    /// Removes a key from the published JWKS (a compromised key is removed at once, rule 8).
    public func unpublish(kid: String) throws(SHCFileError) {
        var keySet = try existingKeySet() ?? SHCJWKSet(keys: [])
        keySet.keys.removeAll { $0.kid == kid }
        try write(keySet.serialized(), to: jwksURL)
    }

    /// The published JWKS for an update: nil when there is none yet; a file that exists but does
    /// not read is an error, never replaced.
    private func existingKeySet() throws(SHCFileError) -> SHCJWKSet? {
        guard FileManager.default.fileExists(atPath: jwksURL.path) else { return nil }
        do { return try readKeySet() } catch { throw .existingFileUnreadable(path: jwksURL.path) }
    }

    /// The published JWKS.
    public func readKeySet() throws(SHCResolverError) -> SHCJWKSet {
        guard let data = try? Data(contentsOf: jwksURL) else {
            throw .unreadable(issuer: root.path, resource: jwksURL.path, reason: "file not readable")
        }
        do { return try SHCJWKSet(jsonBytes: Array(data)) } catch { throw .malformedKeySet(issuer: root.path, error) }
    }

    /// The published CRL of `kid`, or nil when there is none.
    public func readRevocationList(kid: String) throws(SHCResolverError) -> SHCRevocationList? {
        guard let url = try? crlURL(kid: kid), FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = try? Data(contentsOf: url) else {
            throw .unreadable(issuer: root.path, resource: url.path, reason: "file not readable")
        }
        do { return try SHCRevocationList(jsonBytes: Array(data)) } catch {
            throw .malformedRevocationList(issuer: root.path, kid: kid, error)
        }
    }

    /// Revokes rids of key `kid` in one update: the CRL gets the entries and `ctr` + 1 (starting at
    /// 1), and the key's `crlVersion` in the JWKS is set to the new `ctr`.
    ///
    /// - Parameters:
    ///   - rids: the revocation ids to add (each base64url, at most 24 characters, not listed yet).
    ///   - kid: the key whose list is updated (a key of the published JWKS).
    ///   - issuedBefore: limit the revocation to cards issued before this time.
    /// - Returns: the published list.
    @discardableResult
    public func revoke(_ rids: [String], kid: String, issuedBefore: Date? = nil) throws(SHCFileError) -> SHCRevocationList {
        guard let keySet = try existingKeySet(), keySet.keys.contains(where: { $0.kid == kid }) else {
            throw .writeFailed(path: jwksURL.path)
        }
        let existing: SHCRevocationList?
        do { existing = try readRevocationList(kid: kid) } catch { throw .existingFileUnreadable(path: try crlURL(kid: kid).path) }
        var list = existing ?? SHCRevocationList(kid: kid, ctr: 0)
        do {
            try list.revoke(rids, issuedBefore: issuedBefore)
        } catch .ridAlreadyListed(let rid) {
            throw .ridAlreadyListed(rid)
        } catch {
            throw .invalidRid
        }
        try write(list.serialized(), to: try crlURL(kid: kid))
        try write(keySet.settingCRLVersion(list.ctr, forKid: kid).serialized(), to: jwksURL)
        return list
    }

    private func write(_ bytes: [UInt8], to url: URL) throws(SHCFileError) {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            throw .writeFailed(path: url.path)
        }
    }
}
