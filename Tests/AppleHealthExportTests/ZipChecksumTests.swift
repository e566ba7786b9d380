@testable import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import Testing
import TestSupport
import ZIPFoundation

/// Zip entries are checked with zlib's CRC-32 (``ZipCRC32``), ZIPFoundation's own skipped: the same checksum as
/// ZIPFoundation's, and an entry whose bytes or recorded checksum were altered is still refused as damaged, whether
/// export.xml (read as a stream) or a file beside it (read whole).
@Suite("Zip entry checksums from zlib")
struct ZipChecksumTests {
    private static let damaged = "an entry of the zip archive is damaged (size or checksum)"

    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zip-crc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A copy of the zip `original`, written to `url`, with one bit of an entry's data flipped: a byte of the compressed
    /// stream after the entry's name (deflated: it inflates to other bytes or not at all), or a byte of `content`
    /// past its first (stored).
    private static func withOneByteAltered(_ original: Data, entry: Data, content: Data, deflated: Bool, random: inout SplitMix64,
                                           to url: URL) throws -> URL {
        var bytes = original
        let index: Int
        if deflated {
            index = try #require(bytes.range(of: entry)).upperBound + 64 + random.below(20_000)
        } else {
            index = try #require(bytes.range(of: content.prefix(64))).lowerBound + 1 + random.below(content.count - 2)
        }
        bytes[index] ^= 0x01
        try bytes.write(to: url)
        return url
    }

    private static func randomData(_ count: Int, _ random: inout SplitMix64) -> Data {
        Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    @Test("zlib's CRC-32 equals ZIPFoundation's on random data of many sizes, however it is chunked")
    func sameAsZIPFoundation() {
        var random = SplitMix64(seed: 0x5EED_C4C3)
        let sizes = [0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 63, 64, 255, 256, 4095, 4096, 4097, 65_535, 65_536, 65_537,
                     256 * 1024 - 1, 256 * 1024, 256 * 1024 + 1, (1 << 20) + 3]
        for size in sizes {
            let data = Self.randomData(size, &random)
            let expected = data.crc32(checksum: 0)
            var whole = ZipCRC32()
            whole.update(data)
            #expect(whole.value == expected, "size \(size)")
            // The same bytes in random chunks, as the inflater hands them over (some empty, some slices of a larger Data).
            var chunked = ZipCRC32()
            var offset = 0
            while offset < size {
                let length = min(size - offset, random.int(0...70_000))
                chunked.update(data[offset..<offset + length])
                offset += length
            }
            #expect(chunked.value == expected, "size \(size), chunked")
        }
        // A known value (ISO 3309 / zlib check value).
        var check = ZipCRC32()
        check.update(Data("123456789".utf8))
        #expect(check.value == 0xCBF4_3926)
    }

    /// The bytes of the archive entry `stream` reads, or the error it ends with.
    private static func readAll(_ stream: ZipEntryStream) -> Result<Data, AppleHealthExportError> {
        defer { stream.close() }
        var bytes = Data()
        do {
            while let chunk = try stream.read(upToCount: 100_000), !chunk.isEmpty { bytes.append(chunk) }
            return .success(bytes)
        } catch let error as AppleHealthExportError {
            return .failure(error)
        } catch {
            return .failure(AppleHealthExportError(.unreadable, "\(error)"))
        }
    }

    /// Replaces every copy of `checksum` (little-endian: local header, central directory, data descriptor) with another value.
    private static func alterChecksum(_ checksum: UInt32, in bytes: inout Data) -> Int {
        let recorded = withUnsafeBytes(of: checksum.littleEndian) { Data($0) }
        let other = withUnsafeBytes(of: (checksum ^ 0x0000_0100).littleEndian) { Data($0) }
        var count = 0
        while let range = bytes.range(of: recorded) {
            bytes.replaceSubrange(range, with: other)
            count += 1
        }
        return count
    }

    /// A stored entry with an altered byte fails its checksum; a deflated one fails its checksum, does not inflate, or
    /// inflates to more than it declares.
    private static func expectDamaged(_ error: AppleHealthExportError, deflated: Bool, trial: Int) {
        if deflated {
            #expect(error.kind == .malformedArchive || error.kind == .unsafeArchive, "trial \(trial): \(error)")
        } else {
            #expect(error == AppleHealthExportError(.malformedArchive, damaged), "trial \(trial): \(error)")
        }
    }

    @Test("export.xml read as a stream: good bytes come back, an altered byte or checksum is refused as damaged",
          arguments: [false, true])
    func exportStream(deflated: Bool) throws {
        let compression: CompressionMethod = deflated ? .deflate : .none
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SplitMix64(seed: deflated ? 2 : 1)
        // More than one inflater chunk (256 KiB), text so that deflate has something to do.
        let xml = Data((0..<700_000).map { _ in UInt8(ascii: "a") + UInt8(random.below(26)) })
        let zip = folder.appendingPathComponent("export.zip")
        try AppleHealthExportGenerator.writeZip(to: zip, exportXML: xml, compression: compression)
        let path = "apple_health_export/export.xml"
        let limits = AppleHealthImporter.ArchiveLimits()
        #expect(try Self.readAll(ZipEntryStream(archive: zip, path: path, limits: limits, isExport: true)).get() == xml)

        let original = try Data(contentsOf: zip)
        // The recorded checksum altered.
        var bytes = original
        #expect(Self.alterChecksum(xml.crc32(checksum: 0), in: &bytes) >= 1)
        let badChecksum = folder.appendingPathComponent("checksum.zip")
        try bytes.write(to: badChecksum)
        #expect(throws: AppleHealthExportError(.malformedArchive, Self.damaged)) {
            try Self.readAll(ZipEntryStream(archive: badChecksum, path: path, limits: limits, isExport: true)).get()
        }
        // One byte of the entry's data altered (stored: a letter of the text; deflated: a byte of the compressed stream,
        // which inflates to other bytes or not at all).
        for trial in 0..<8 {
            let badData = try Self.withOneByteAltered(original, entry: Data(path.utf8), content: xml, deflated: deflated, random: &random,
                                                      to: folder.appendingPathComponent("data-\(trial).zip"))
            let result = Self.readAll(ZipEntryStream(archive: badData, path: path, limits: limits, isExport: true))
            switch result {
            case .success: Issue.record("trial \(trial): a damaged entry was read")
            case .failure(let error): Self.expectDamaged(error, deflated: deflated, trial: trial)
            }
        }
    }

    @Test("A GPX file read whole: good bytes come back, an altered byte or checksum is refused as damaged",
          arguments: [false, true])
    func fileBesideTheExport(deflated: Bool) throws {
        let compression: CompressionMethod = deflated ? .deflate : .none
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SplitMix64(seed: deflated ? 4 : 3)
        var gpx = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n"
        for index in 0..<5_000 {
            gpx += "<trkpt lon=\"-0.\(random.below(100_000))\" lat=\"51.\(random.below(100_000))\"><time>2020-10-04T06:\(index % 60):00Z</time></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        let route = Data(gpx.utf8)
        let name = "route_2020-10-04_7.31am.gpx"
        let zip = folder.appendingPathComponent("export.zip")
        try AppleHealthExportGenerator.writeZip(to: zip, exportXML: Data(AppleHealthExportGenerator.full().document().utf8),
                                                files: [(path: "workout-routes/" + name, bytes: route)], compression: compression)
        let limits = AppleHealthImporter.ArchiveLimits()
        #expect(try Data(ExportContainer(url: zip, limits: limits).read(folder: "workout-routes", name: name)) == route)

        let original = try Data(contentsOf: zip)
        var bytes = original
        #expect(Self.alterChecksum(route.crc32(checksum: 0), in: &bytes) >= 1)
        let badChecksum = folder.appendingPathComponent("checksum.zip")
        try bytes.write(to: badChecksum)
        #expect(throws: AppleHealthExportError(.malformedArchive, Self.damaged)) {
            try ExportContainer(url: badChecksum, limits: limits).read(folder: "workout-routes", name: name)
        }
        for trial in 0..<8 {
            let badData = try Self.withOneByteAltered(original, entry: Data(("apple_health_export/workout-routes/" + name).utf8), content: route,
                                                      deflated: deflated, random: &random, to: folder.appendingPathComponent("data-\(trial).zip"))
            let result = Result { () throws(AppleHealthExportError) -> [UInt8] in
                try ExportContainer(url: badData, limits: limits).read(folder: "workout-routes", name: name)
            }
            switch result {
            case .success: Issue.record("trial \(trial): a damaged file was read")
            case .failure(let error): Self.expectDamaged(error, deflated: deflated, trial: trial)
            }
        }
    }
}
