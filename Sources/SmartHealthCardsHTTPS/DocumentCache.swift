import CommonSupport
import Crypto
import Foundation

/// The documents an ``HTTPSKeyResolver`` has fetched: in memory, and optionally in a folder so
/// that a later process (a second run of a command-line tool) can verify offline.
///
/// Each document is one file named by the lower-case hex SHA-256 of its URL plus `.json`,
/// written to a temporary file with mode 0600 and renamed over the old one, so a reader never
/// sees half a file. A file that cannot be read or decoded, that holds another URL, or that is
/// not a private file of this user (``SecretFile``), counts as absent. Failures to write are ignored: the cache only saves network requests.
///
/// At most ``memoryLimit`` documents are held in memory (the one received longest ago goes
/// first), since issuer URLs come from the cards being verified; the folder is not pruned.
actor DocumentCache {
    /// The most documents kept in memory.
    static let memoryLimit = 1024
    /// The largest cache file read back (a JWKS, CRL or VCI snapshot with its headers).
    static let fileSizeLimit = 16 << 20

    private var memory: [String: CachedDocument] = [:]
    private let folder: URL?

    /// Creates a cache, kept in memory only when `folder` is nil.
    init(folder: URL?) {
        self.folder = folder
    }

    /// The entry for `url`, from memory or else from the folder.
    func entry(for url: String) -> CachedDocument? {
        if let entry = memory[url] { return entry }
        // Only a private file of this user is read back (SecretFile): a file another user could
        // have written must not vouch for an issuer's keys.
        guard let file = fileURL(for: url), let bytes = try? SecretFile.load(file.path, maximumSize: Self.fileSizeLimit),
              case let data = Data(bytes),
              let entry = try? JSONDecoder().decode(CachedDocument.self, from: data), entry.url == url else {
            return nil
        }
        keepInMemory(entry)
        return entry
    }

    /// Keeps `entry` in memory and, when a folder is set, on disk.
    func store(_ entry: CachedDocument) {
        keepInMemory(entry)
        guard let folder, let file = fileURL(for: entry.url),
              let data = try? JSONEncoder().encode(entry) else { return }
        // Mode 0600 from creation, replaced atomically: a reader never sees half an entry. A
        // failed write only means the next run fetches again.
        try? SecretFile.createFolder(folder.path)
        try? SecretFile.save(data, to: file.path, replacing: true)
    }

    /// Forgets the entry for `url`, in memory and on disk.
    func remove(url: String) {
        memory[url] = nil
        if let file = fileURL(for: url) { try? FileManager.default.removeItem(at: file) }
    }

    private func keepInMemory(_ entry: CachedDocument) {
        if memory[entry.url] == nil, memory.count >= DocumentCache.memoryLimit,
           let oldest = memory.values.min(by: { $0.receivedAt < $1.receivedAt }) {
            memory[oldest.url] = nil
        }
        memory[entry.url] = entry
    }

    /// The file name used for `url`: lower-case hex SHA-256 of its UTF-8 bytes, plus `.json`.
    static func fileName(for url: String) -> String {
        HexText.encode(SHA256.hash(data: Array(url.utf8))) + ".json"
    }

    private func fileURL(for url: String) -> URL? {
        folder?.appendingPathComponent(DocumentCache.fileName(for: url), isDirectory: false)
    }
}
