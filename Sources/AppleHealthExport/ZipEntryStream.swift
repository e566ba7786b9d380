import Foundation
import ZIPFoundation

/// An entry of a zip archive read as a stream: a thread inflates it (ZIPFoundation hands the
/// inflated bytes to a closure) into a bounded buffer that the reader drains, so memory holds at
/// most ``bufferLimit`` bytes of the entry whatever its size. Nothing is written to disk.
///
/// The inflater checks what it produces: more bytes than the entry declares, or than the
/// archive limits allow, stop it with ``AppleHealthExportError/Kind-swift.enum/unsafeArchive``;
/// a checksum that does not match stops it with ``AppleHealthExportError/Kind-swift.enum/malformedArchive``.
final class ZipEntryStream: ExportByteSource, @unchecked Sendable {
    /// The most inflated bytes waiting for the reader.
    static let bufferLimit = 4 << 20

    private let condition = NSCondition()
    private var chunks: [Data] = []
    private var chunkOffset = 0
    private var buffered = 0
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false

    /// Starts inflating the entry at `path` of the archive at `url`.
    init(archive url: URL, path: String, limits: AppleHealthImporter.ArchiveLimits, isExport: Bool) {
        let thread = Thread { [self] in
            do {
                try inflate(archive: url, path: path, limits: limits, isExport: isExport)
                finish(nil)
            } catch {
                finish(error)
            }
        }
        thread.name = "apple-health-export.unzip"
        thread.start()
    }

    private func inflate(archive url: URL, path: String, limits: AppleHealthImporter.ArchiveLimits, isExport: Bool) throws {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw AppleHealthExportError(.malformedArchive, "the zip archive cannot be read")
        }
        guard let entry = archive[path], entry.type == .file else {
            throw AppleHealthExportError(.malformedArchive, "an entry of the zip archive cannot be read")
        }
        try limits.check(declared: entry.uncompressedSize, compressed: entry.compressedSize, isExport: isExport)
        var produced: UInt64 = 0
        // The checksum is zlib's (``ZipCRC32``): ZIPFoundation's own, in Swift, is skipped.
        var checksum = ZipCRC32()
        do {
            _ = try archive.extract(entry, bufferSize: 256 * 1024, skipCRC32: true) { data in
                produced += UInt64(data.count)
                guard produced <= entry.uncompressedSize else {
                    throw AppleHealthExportError(.unsafeArchive, "an entry of the zip archive inflates to more than it declares")
                }
                checksum.update(data)
                try self.write(data)
            }
        } catch let error as AppleHealthExportError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw AppleHealthExportError(.malformedArchive, "an entry of the zip archive cannot be inflated")
        }
        guard produced == entry.uncompressedSize, checksum.value == entry.checksum else {
            throw AppleHealthExportError(.malformedArchive, "an entry of the zip archive is damaged (size or checksum)")
        }
    }

    private func write(_ data: Data) throws {
        guard !data.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        while buffered >= Self.bufferLimit, !cancelled { condition.wait() }
        if cancelled { throw CancellationError() }
        chunks.append(data)
        buffered += data.count
        condition.broadcast()
    }

    private func finish(_ error: (any Error)?) {
        condition.lock()
        finished = true
        if !(error is CancellationError) { failure = error }
        condition.broadcast()
        condition.unlock()
    }

    func read(upToCount count: Int) throws -> Data? {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty, !finished { condition.wait() }
        guard let first = chunks.first else {
            if let failure { throw failure }
            return nil
        }
        let available = first.count - chunkOffset
        let taken = min(count, available)
        let start = first.startIndex + chunkOffset
        let data = first.subdata(in: start..<start + taken)
        if taken == available {
            chunks.removeFirst()
            chunkOffset = 0
        } else {
            chunkOffset += taken
        }
        buffered -= taken
        condition.broadcast()
        return data
    }

    /// Stops the inflater (it ends at its next chunk) and drops what it buffered.
    func close() {
        condition.lock()
        cancelled = true
        chunks.removeAll()
        buffered = 0
        condition.broadcast()
        condition.unlock()
    }
}
