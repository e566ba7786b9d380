import CommonSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keys read from folders laid out like an issuer's web root: `<folder>/.well-known/jwks.json` and
/// optionally `<folder>/.well-known/crl/<kid>.json`, one folder per issuer URL.
///
/// A folder can be updated while the resolver is in use: each call looks at the file (its inode,
/// size and modification time, one `stat`) and reads and parses it again only when it changed,
/// so verifying many cards against one folder parses its keys once. A resolver made with
/// `followsChanges: false` (a command verifying one batch) reads each key set once and keeps it:
/// then a call costs no `stat`.
public struct FolderKeyResolver: IssuerKeyResolver {
    /// Each issuer's key set file and revocation list folder (ending in `/`), worked out once.
    private let paths: [String: (keySet: String, revocationLists: String)]
    private let followsChanges: Bool
    private let parsed = ParsedFiles()

    /// Creates a resolver from the folder of each issuer URL.
    /// - Parameters:
    ///   - folders: the folder of each issuer URL.
    ///   - followsChanges: whether each call checks that the key set file is still the one parsed
    ///     (the default); when false, a key set once read is kept for the resolver's lifetime.
    public init(_ folders: [String: URL], followsChanges: Bool = true) {
        paths = folders.mapValues { folder in
            let path = folder.path
            let wellKnown = path.hasSuffix("/") ? path + ".well-known/" : path + "/.well-known/"
            return (wellKnown + "jwks.json", wellKnown + "crl/")
        }
        self.followsChanges = followsChanges
    }

    /// Reads `<folder>/.well-known/jwks.json` of `issuer`; nil when no folder is configured for it.
    public func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet? {
        guard let path = paths[issuer]?.keySet else { return nil }
        if !followsChanges, case .keySet(let keySet)? = parsed.value(for: path, identity: nil) { return keySet }
        let identity = FileIdentity(path: path)
        if let identity, case .keySet(let keySet)? = parsed.value(for: path, identity: identity) { return keySet }
        let bytes = try Self.read(path, issuer: issuer)
        do {
            let keySet = try SHCJWKSet(jsonBytes: bytes)
            if let identity { parsed.store(.keySet(keySet), for: path, identity: identity) }
            return keySet
        } catch {
            throw .malformedKeySet(issuer: issuer, error)
        }
    }

    /// Reads `<folder>/.well-known/crl/<kid>.json`; nil when the issuer has no folder or the file
    /// does not exist. A `kid` that is not base64url is never used in a path.
    public func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList? {
        guard let folder = paths[issuer]?.revocationLists, !kid.isEmpty, kid.utf8.allSatisfy(Base64URL.isAlphabet) else { return nil }
        let path = folder + kid + ".json"
        guard let identity = FileIdentity(path: path) else { return nil }
        if case .revocationList(let list)? = parsed.value(for: path, identity: identity) { return list }
        let bytes = try Self.read(path, issuer: issuer)
        do {
            let list = try SHCRevocationList(jsonBytes: bytes)
            parsed.store(.revocationList(list), for: path, identity: identity)
            return list
        } catch {
            throw .malformedRevocationList(issuer: issuer, kid: kid, error)
        }
    }

    private static func read(_ path: String, issuer: String) throws(SHCResolverError) -> [UInt8] {
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .unreadable(issuer: issuer, resource: path, reason: "file not readable")
        }
    }
}

/// What identifies a file's contents without reading them: device, inode, size and modification
/// time. A file replaced by rename gets a new inode; one rewritten in place a new time or size.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let seconds: Int
    let nanoseconds: Int

    /// The identity of the regular file at `path`; nil when there is none.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        #if canImport(Darwin)
        seconds = status.st_mtimespec.tv_sec
        nanoseconds = status.st_mtimespec.tv_nsec
        #else
        seconds = status.st_mtim.tv_sec
        nanoseconds = status.st_mtim.tv_nsec
        #endif
    }
}

/// The files a ``FolderKeyResolver`` has parsed, with the identity each was parsed at.
private final class ParsedFiles: Sendable {
    enum Value {
        case keySet(SHCJWKSet)
        case revocationList(SHCRevocationList)
    }

    private let entries = Mutex<[String: (identity: FileIdentity, value: Value)]>([:])

    /// The parsed value of `path`, when the file is still the one parsed (`identity`), or
    /// whatever was parsed when `identity` is nil.
    func value(for path: String, identity: FileIdentity?) -> Value? {
        entries.withLock { entries in
            guard let entry = entries[path], identity == nil || entry.identity == identity else { return nil }
            return entry.value
        }
    }

    func store(_ value: Value, for path: String, identity: FileIdentity) {
        entries.withLock { $0[path] = (identity, value) }
    }
}
