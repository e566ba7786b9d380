import Foundation
import ZIPFoundation

/// Where an export's files are: an `export.xml` on disk with its folder (`clinical-records/`
/// beside it), or Apple's `export.zip` (`apple_health_export/export.xml`, `export_cda.xml`,
/// `workout-routes/`, `clinical-records/`, `electrocardiograms/`), read without extracting it.
///
/// Only files the importer knows are opened, and only by names it builds or checks itself:
/// archive entries with absolute paths, `..` components, backslashes or control characters are
/// never used (they are counted), and nothing from an archive is ever written to disk.
struct ExportContainer {
    private enum Storage {
        case directory(xml: URL)
        case archive(url: URL, root: String, index: ArchiveIndex)
    }

    private let storage: Storage
    let limits: AppleHealthImporter.ArchiveLimits
    /// The size of export.xml (inflated), for progress.
    let exportSize: UInt64?
    /// The clinical record files by name (`Condition-….json`).
    private(set) var clinicalRecordFiles: [String] = []
    /// Files not imported, by reason.
    private(set) var skipped: [String: Int] = [:]
    /// The electrocardiogram CSV files by name (`ecg_2020-10-04.csv`).
    private(set) var electrocardiogramFiles: [String] = []

    /// A zip archive starts with a local file header (or is an empty archive's end record).
    static func isZip(_ head: Data) -> Bool {
        head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06])
    }

    /// Opens the export at `url`: a zip archive (by its first bytes) or an export.xml.
    init(url: URL, limits: AppleHealthImporter.ArchiveLimits) throws(AppleHealthExportError) {
        self.limits = limits
        let head: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            head = try handle.read(upToCount: 4) ?? Data()
        } catch {
            throw AppleHealthExportError(.unreadable, "cannot read \(url.lastPathComponent)")
        }
        if Self.isZip(head) {
            let index = try ArchiveIndex(url)
            (storage, exportSize) = try Self.findExport(url, index: index, limits: limits)
            try listArchive(index)
        } else {
            storage = .directory(xml: url)
            exportSize = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize).map { UInt64($0) }
            listDirectory(url.deletingLastPathComponent().appendingPathComponent("clinical-records", isDirectory: true))
            listElectrocardiograms(url.deletingLastPathComponent().appendingPathComponent("electrocardiograms", isDirectory: true))
        }
    }

    /// A name from an archive the importer may use: relative, no `..` or `.` components, no
    /// backslashes, no control characters.
    static func isSafe(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\\"),
              !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return false }
        return !path.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == ".." || $0 == "." }
    }

    /// A file name the importer may open in a folder of the export: one component, not hidden.
    static func isSafeFileName(_ name: String) -> Bool {
        isSafe(name) && !name.contains("/") && !name.hasPrefix(".")
    }

    private static func findExport(_ url: URL, index: ArchiveIndex, limits: AppleHealthImporter.ArchiveLimits) throws(AppleHealthExportError)
        -> (Storage, UInt64?) {
        // apple_health_export/export.xml, or export.xml at the top or one folder down.
        var candidates: [(root: String, size: UInt64, compressed: UInt64)] = []
        for entry in index.entries where entry.type == .file && isSafe(entry.path) {
            let parts = entry.path.split(separator: "/", omittingEmptySubsequences: false)
            if parts.last == "export.xml", parts.count <= 2 {
                candidates.append((parts.count == 2 ? String(parts[0]) + "/" : "", entry.uncompressedSize, entry.compressedSize))
            }
        }
        guard let chosen = candidates.first(where: { $0.root == "apple_health_export/" }) ?? candidates.first else {
            throw AppleHealthExportError(.notAnExport, "the zip archive has no apple_health_export/export.xml")
        }
        try limits.check(declared: chosen.size, compressed: chosen.compressed, isExport: true)
        return (.archive(url: url, root: chosen.root, index: index), chosen.size)
    }

    private mutating func listArchive(_ index: ArchiveIndex) throws(AppleHealthExportError) {
        guard case .archive(_, let root, _) = storage else { return }
        for entry in index.entries {
            let path = entry.path
            guard Self.isSafe(path) else {
                skipped["archive entry with an unsafe name", default: 0] += 1
                continue
            }
            guard entry.type == .file else {
                if entry.type == .symlink { skipped["symbolic link in the archive", default: 0] += 1 }
                continue
            }
            guard path.hasPrefix(root) else {
                skipped["file outside the export folder", default: 0] += 1
                continue
            }
            let relative = path.dropFirst(root.count)
            if relative == "export.xml" { continue }
            if relative.hasPrefix("clinical-records/"), relative.hasSuffix(".json"),
               Self.isSafeFileName(String(relative.dropFirst("clinical-records/".count))) {
                // Refused before anything is imported; the inflater also stops an entry that lies about its size.
                try limits.check(declared: entry.uncompressedSize, compressed: entry.compressedSize, isExport: false)
                clinicalRecordFiles.append(String(relative.dropFirst("clinical-records/".count)))
            } else if relative.hasPrefix("electrocardiograms/") {
                let name = String(relative.dropFirst("electrocardiograms/".count))
                if name.lowercased().hasSuffix(".csv"), Self.isSafeFileName(name) {
                    try limits.check(declared: entry.uncompressedSize, compressed: entry.compressedSize, isExport: false)
                    electrocardiogramFiles.append(name)
                } else {
                    skipped["file in electrocardiograms/ that is not an electrocardiogram CSV", default: 0] += 1
                }
            } else if relative.hasPrefix("workout-routes/") {
                continue  // read through the workouts' WorkoutRoute elements
            } else if relative == "export_cda.xml" {
                skipped["export_cda.xml (the same data as export.xml)", default: 0] += 1
            } else {
                skipped["other file in the archive", default: 0] += 1
            }
        }
        clinicalRecordFiles.sort()
        electrocardiogramFiles.sort()
    }

    private mutating func listDirectory(_ folder: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names.sorted() where name.hasSuffix(".json") {
            guard Self.isSafeFileName(name) else { continue }
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else {
                skipped["clinical record that is not a regular file", default: 0] += 1
                continue
            }
            clinicalRecordFiles.append(name)
        }
    }

    /// The CSV files of an `electrocardiograms` folder beside export.xml (regular files only).
    private mutating func listElectrocardiograms(_ folder: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names.sorted() where name.lowercased().hasSuffix(".csv") && Self.isSafeFileName(name) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else {
                skipped["electrocardiogram that is not a regular file", default: 0] += 1
                continue
            }
            electrocardiogramFiles.append(name)
        }
    }

    /// A new stream of export.xml's bytes.
    func openExport() throws(AppleHealthExportError) -> any ExportByteSource {
        switch storage {
        case .directory(let xml):
            do {
                return try FileByteSource(xml)
            } catch {
                throw AppleHealthExportError(.unreadable, "cannot read \(xml.lastPathComponent)")
            }
        case .archive(let url, let root, _):
            return ZipEntryStream(archive: url, path: root + "export.xml", limits: limits, isExport: true)
        }
    }

    /// How the archive's central directory was read (nil for a folder): the tests' measure.
    var archiveReads: ArchiveIndex.Reads? {
        guard case .archive(_, _, let index) = storage else { return nil }
        return index.reads
    }

    /// The bytes of a file of the export (`clinical-records/NAME`), at most
    /// ``AppleHealthImporter/ArchiveLimits/maximumFileSize``; `name` must be one of the names listed.
    func read(folder: String, name: String) throws(AppleHealthExportError) -> [UInt8] {
        guard Self.isSafeFileName(name) else {
            throw AppleHealthExportError(.invalidElement, "a file name in the export is not a plain name")
        }
        let source: any ExportByteSource
        switch storage {
        case .directory(let xml):
            let url = xml.deletingLastPathComponent().appendingPathComponent(folder, isDirectory: true).appendingPathComponent(name)
            do {
                source = try FileByteSource(url)
            } catch {
                throw AppleHealthExportError(.unreadable, "cannot read a file of the export's \(folder) folder")
            }
        case .archive(_, let root, let index):
            return try index.read(root + folder + "/" + name, limits: limits)
        }
        defer { source.close() }
        var bytes: [UInt8] = []
        do {
            while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty {
                bytes.append(contentsOf: chunk)
                guard UInt64(bytes.count) <= limits.maximumFileSize else {
                    throw AppleHealthExportError(.unsafeArchive, "a file of the export's \(folder) folder is larger than \(limits.maximumFileSize) bytes")
                }
            }
        } catch let error as AppleHealthExportError {
            throw error
        } catch {
            throw AppleHealthExportError(.unreadable, "cannot read a file of the export's \(folder) folder")
        }
        return bytes
    }
}

/// A zip archive opened once, its central directory read once into a dictionary by name: the
/// files read after export.xml (clinical records, workout routes) are found at no cost per
/// entry, so reading all of them is linear in their number. ZIPFoundation's `Archive` reads
/// through one file handle, so files are read one at a time (a lock), each inflated in the
/// calling thread (they are at most ``AppleHealthImporter/ArchiveLimits/maximumFileSize``).
/// export.xml itself streams through a ``ZipEntryStream`` of its own.
final class ArchiveIndex: @unchecked Sendable {
    /// How the archive was read: the number of times it was opened and of central-directory
    /// entries visited (each once, when the index is built).
    struct Reads: Equatable, Sendable {
        var opens = 0
        var entriesVisited = 0
    }

    private let archive: Archive
    private let lock = NSLock()
    /// The archive's entries, in the central directory's order.
    let entries: [Entry]
    /// The position in ``entries`` of the first entry of each name.
    private let positions: [String: Int]
    private var counted = Reads()

    /// Opens the archive at `url` and reads its central directory.
    init(_ url: URL) throws(AppleHealthExportError) {
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw AppleHealthExportError(.malformedArchive, "the zip archive cannot be read")
        }
        var entries: [Entry] = []
        var positions: [String: Int] = [:]
        for entry in archive {
            if positions[entry.path] == nil { positions[entry.path] = entries.count }
            entries.append(entry)
        }
        self.entries = entries
        self.positions = positions
        counted = Reads(opens: 1, entriesVisited: entries.count)
    }

    /// How the archive was read so far.
    var reads: Reads {
        lock.withLock { counted }
    }

    /// The inflated bytes of the file entry at `path`, checked against `limits` (declared sizes,
    /// then what it inflates to), its size and its checksum.
    func read(_ path: String, limits: AppleHealthImporter.ArchiveLimits) throws(AppleHealthExportError) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        guard let position = positions[path], entries[position].type == .file else {
            throw AppleHealthExportError(.malformedArchive, "an entry of the zip archive cannot be read")
        }
        let entry = entries[position]
        try limits.check(declared: entry.uncompressedSize, compressed: entry.compressedSize, isExport: false)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(clamping: min(entry.uncompressedSize, 16 << 20)))
        // The checksum is zlib's (``ZipCRC32``): ZIPFoundation's own, in Swift, is skipped.
        var checksum = ZipCRC32()
        do {
            _ = try archive.extract(entry, bufferSize: 256 * 1024, skipCRC32: true) { data in
                guard UInt64(bytes.count + data.count) <= min(entry.uncompressedSize, limits.maximumFileSize) else {
                    throw AppleHealthExportError(.unsafeArchive, "an entry of the zip archive inflates to more than it declares")
                }
                checksum.update(data)
                bytes.append(contentsOf: data)
            }
        } catch let error as AppleHealthExportError {
            throw error
        } catch {
            throw AppleHealthExportError(.malformedArchive, "an entry of the zip archive cannot be inflated")
        }
        guard UInt64(bytes.count) == entry.uncompressedSize, checksum.value == entry.checksum else {
            throw AppleHealthExportError(.malformedArchive, "an entry of the zip archive is damaged (size or checksum)")
        }
        return bytes
    }
}
