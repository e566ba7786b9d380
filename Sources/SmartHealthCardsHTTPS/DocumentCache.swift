import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The documents an ``HTTPSKeyResolver`` has fetched: in memory, and optionally in a folder so
/// that a later process (a second run of a command-line tool) can verify offline.
///
/// Each document is one file named by the lower-case hex SHA-256 of its URL plus `.json`,
/// written to a temporary file with mode 0600 and renamed over the old one, so a reader never
/// sees half a file. A file that cannot be read or decoded, or that holds another URL, counts as
/// absent. Failures to write are ignored: the cache only saves network requests.
///
/// At most ``memoryLimit`` documents are held in memory (the one received longest ago goes
/// first), since issuer URLs come from the cards being verified; the folder is not pruned.
actor DocumentCache {
    /// The most documents kept in memory.
    static let memoryLimit = 1024

    private var memory: [String: CachedDocument] = [:]
    private let folder: URL?

    /// Creates a cache, kept in memory only when `folder` is nil.
    init(folder: URL?) {
        self.folder = folder
    }

    /// The entry for `url`, from memory or else from the folder.
    func entry(for url: String) -> CachedDocument? {
        if let entry = memory[url] { return entry }
        guard let file = fileURL(for: url), let data = try? Data(contentsOf: file),
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
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        _ = DocumentCache.writeAtomically(data, to: file)
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
        let hex = SHA256.hash(data: Array(url.utf8)).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
        }
        return hex.joined() + ".json"
    }

    private func fileURL(for url: String) -> URL? {
        folder?.appendingPathComponent(DocumentCache.fileName(for: url), isDirectory: false)
    }

    /// Writes `data` to a new temporary file beside `file` (mode 0600, created exclusively), then
    /// renames it over `file`. Returns whether it succeeded; the temporary file is removed on failure.
    private static func writeAtomically(_ data: Data, to file: URL) -> Bool {
        let temporary = file.path + ".\(UInt64.random(in: 0...UInt64.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        var written = 0
        let complete = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Bool in
            while written < buffer.count {
                guard let base = buffer.baseAddress else { return false }
                let result = write(descriptor, base + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += result
            }
            return true
        }
        let synced = complete && fsync(descriptor) == 0
        let closed = close(descriptor) == 0
        guard synced, closed, rename(temporary, file.path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
