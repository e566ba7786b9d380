import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

@Suite("Apple Health export.zip")
struct ExportContainerTests {
    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private static let gpx = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Apple Health Export"><trk><trkseg>
        <trkpt lon="-0.1" lat="51.5"><ele>10</ele><time>2020-10-04T06:00:00Z</time></trkpt>
        </trkseg></trk></gpx>
        """.utf8)

    /// An export.zip as the Health app writes it, with every kind of file beside export.xml.
    private static func appleZip(in folder: URL, xml: String = AppleHealthExportGenerator.full().document(),
                                 extra: [(path: String, bytes: Data)] = []) throws -> URL {
        let url = folder.appendingPathComponent("export.zip")
        let record = AppleHealthExportGenerator.clinicalRecord
        try AppleHealthExportGenerator.writeZip(to: url, exportXML: Data(xml.utf8), files: [
            (path: "export_cda.xml", bytes: Data("<ClinicalDocument/>".utf8)),
            (path: "workout-routes/route_2020-10-04_7.31am.gpx", bytes: gpx),
            (path: "clinical-records/\(record.name)", bytes: Data(record.json.utf8)),
            (path: "electrocardiograms/ecg_2020-10-05.csv", bytes: Data("Name,Jane\n".utf8)),
        ] + extra)
        return url
    }

    @Test("export.zip imports as its export.xml does, streamed from the archive, with progress through the file")
    func zipMatchesXML() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let xml = AppleHealthExportGenerator.full().document()
        let archive = try Self.appleZip(in: folder, xml: xml)
        let store = AppleHealthImporterTests.ownerStore()
        let seen = Inbox<AppleHealthImportProgress>()
        let report = try await AppleHealthImporter(batchSize: 2).importExport(at: archive, into: store) { seen.append($0) }

        let plain = try AppleHealthImporterTests.write(xml)
        defer { AppleHealthImporterTests.remove(plain) }
        let expected = try await AppleHealthImporter(batchSize: 2).importExport(at: plain, into: AppleHealthImporterTests.ownerStore())
        #expect(report.imported == expected.imported)
        #expect(report.duplicates == 2)
        #expect(try await AppleHealthImporterTests.count(store) == 7)
        // Counted, not imported: no clinical-record importer was given, ECGs and the CDA document are not read.
        #expect(report.skipped["clinical record (no clinical-record importer)"] == 1)
        #expect(report.skipped["electrocardiogram (not imported)"] == 1)
        #expect(report.skipped["export_cda.xml (the same data as export.xml)"] == 1)
        #expect(report.skipped["ClinicalRecord without its resource file"] == nil)
        let updates = seen.values
        #expect(updates.count == report.batches)
        #expect(updates.last?.totalBytes == UInt64(xml.utf8.count))
        #expect(updates.last?.fraction == 1)
        #expect(zip(updates, updates.dropFirst()).allSatisfy { $0.bytesRead <= $1.bytesRead })
    }

    @Test("A zip of a large export streams in bounded memory and refuses nothing (deflate, 4 MiB buffer)")
    func largeZip() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let xml = folder.appendingPathComponent("big.xml")
        try AppleHealthExportGenerator.writeLargeExport(records: 16_000, to: xml)
        let zip = folder.appendingPathComponent("export.zip")
        try AppleHealthExportGenerator.writeZip(to: zip, exportXML: try Data(contentsOf: xml))
        let store = AppleHealthImporterTests.ownerStore()
        let report = try await AppleHealthImporter(batchSize: 4_000).importExport(at: zip, into: store)
        #expect(report.importedCount == 16_000)
        #expect(report.skipped == ["unsupported characteristic HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse": 1])
        let steps = try await AppleHealthImporterTests.quantities(store, .stepCount)
        #expect(steps.count == 8_000)
        let first = AppleHealthExportGenerator.largeRecord(1)
        #expect(steps.first?.startDate == Date(timeIntervalSince1970: TimeInterval(first.start)))
        #expect(steps.first?.quantity.doubleValue(for: .count()) == first.value)
    }

    @Test("Entries with unsafe names are never used: counted, and nothing is written anywhere", arguments: [
        "/../evil.json",
        "/apple_health_export/clinical-records/../../evil.json",
        "/apple_health_export/clinical-records/./evil.json",
        "/apple_health_export/clinical-records/..\\evil.json",
        "/apple_health_export/clinical-records/evil\u{1}.json",
    ])
    func traversal(path: String) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = try Self.appleZip(in: folder, extra: [(path: path, bytes: Data(AppleHealthExportGenerator.clinicalRecord.json.utf8))])
        let report = try await AppleHealthImporter().importExport(at: zip, into: AppleHealthImporterTests.ownerStore())
        #expect(report.skipped["archive entry with an unsafe name"] == 1)
        #expect(report.skipped["clinical record (no clinical-record importer)"] == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["export.zip"])
        #expect(!FileManager.default.fileExists(atPath: folder.deletingLastPathComponent().appendingPathComponent("evil.json").path))
    }

    @Test("Zip bombs and damaged archives: a typed error before anything is stored", arguments: [
        "export bomb", "clinical record bomb", "export over the size limit", "truncated archive", "not an archive", "no export.xml",
        "damaged entry",
    ])
    func refused(name: String) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var limits = AppleHealthImporter.ArchiveLimits()
        let expected: [AppleHealthExportError.Kind]
        let zip: URL
        let full = AppleHealthExportGenerator.full().document()
        switch name {
        case "export bomb":
            // 3 MiB of spaces between two elements: valid XML, inflating about 1,000 times.
            let padded = full.replacingOccurrences(of: "<ExportDate", with: String(repeating: " ", count: 3 << 20) + "<ExportDate")
            zip = try Self.appleZip(in: folder, xml: padded)
            expected = [.unsafeArchive]
        case "clinical record bomb":
            let padded = Data(("{" + String(repeating: " ", count: 3 << 20) + "}").utf8)
            zip = try Self.appleZip(in: folder, extra: [(path: "clinical-records/Observation-bomb.json", bytes: padded)])
            expected = [.unsafeArchive]
        case "export over the size limit":
            zip = try Self.appleZip(in: folder)
            limits.maximumExportSize = 1_000
            expected = [.unsafeArchive]
        case "truncated archive":
            let whole = try Data(contentsOf: try Self.appleZip(in: folder))
            zip = folder.appendingPathComponent("cut.zip")
            try whole.prefix(whole.count / 2).write(to: zip)
            expected = [.malformedArchive]
        case "not an archive":
            zip = folder.appendingPathComponent("export.zip")
            try Data([0x50, 0x4B, 0x03, 0x04] + Array(repeating: 0x41, count: 200)).write(to: zip)
            expected = [.malformedArchive]
        case "no export.xml":
            zip = folder.appendingPathComponent("export.zip")
            try AppleHealthExportGenerator.writeZip(to: zip, exportXML: Data(full.utf8))
            let renamed = folder.appendingPathComponent("renamed.zip")
            var bytes = try Data(contentsOf: zip)
            // Rename the entry in both headers: export.xml → exports.xm.
            let name = Data("export.xml".utf8)
            while let range = bytes.range(of: name) { bytes.replaceSubrange(range, with: Data("exports.xm".utf8)) }
            try bytes.write(to: renamed)
            try FileManager.default.removeItem(at: zip)
            try FileManager.default.moveItem(at: renamed, to: zip)
            expected = [.notAnExport]
        default:
            // Stored (not deflated) so that the damage is a wrong byte of the XML the checksum catches.
            zip = folder.appendingPathComponent("export.zip")
            try AppleHealthExportGenerator.writeZip(to: zip, exportXML: Data(full.utf8), compression: .none)
            var bytes = try Data(contentsOf: zip)
            let marker = try #require(bytes.range(of: Data("value=\"1200\"".utf8)))
            bytes[marker.lowerBound + 7] = UInt8(ascii: "3")
            try bytes.write(to: zip)
            expected = [.malformedArchive]
        }
        let store = AppleHealthImporterTests.ownerStore()
        do {
            _ = try await AppleHealthImporter(archiveLimits: limits).importExport(at: zip, into: store)
            Issue.record("\(name): imported")
        } catch let error as AppleHealthExportError {
            #expect(expected.contains(error.kind), "\(name): \(error)")
        }
        #expect(try await AppleHealthImporterTests.count(store) == 0)
    }
}
