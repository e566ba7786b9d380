import Synchronization

/// Revocation lists already obtained, by issuer, kid and `crlVersion` (rule 42: a verifier may use
/// a cached CRL while the key's `crlVersion` is unchanged). Shared by copies of a verifier.
final class SHCRevocationCache: Sendable {
    private struct Entry {
        var issuer: String
        var kid: String
        var version: Int
        var list: SHCRevocationList
    }

    /// A short list searched linearly: a verifier sees few keys with CRLs, and comparing two equal
    /// strings is cheaper than hashing them.
    private let entries = Mutex<[Entry]>([])
    private static let capacity = 64

    func list(issuer: String, kid: String, version: Int) -> SHCRevocationList? {
        entries.withLock { entries in
            entries.first { $0.version == version && $0.kid == kid && $0.issuer == issuer }?.list
        }
    }

    func store(_ list: SHCRevocationList, issuer: String, kid: String, version: Int) {
        entries.withLock { entries in
            entries.removeAll { $0.kid == kid && $0.issuer == issuer }
            if entries.count >= SHCRevocationCache.capacity { entries.removeFirst() }
            entries.append(Entry(issuer: issuer, kid: kid, version: version, list: list))
        }
    }
}
