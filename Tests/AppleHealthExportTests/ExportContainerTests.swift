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
        let plainSeen = Inbox<AppleHealthImportProgress>()
        let expected = try await AppleHealthImporter(batchSize: 2).importExport(at: plain, into: AppleHealthImporterTests.ownerStore()) {
            plainSeen.append($0)
        }
        #expect(plainSeen.values.last?.totalBytes == UInt64(xml.utf8.count))
        // The same, but the route: its GPX file is in the archive, not beside the plain export.xml.
        #expect(report.imported.filter { $0.key != HKWorkoutRouteTypeIdentifier } == expected.imported)
        #expect(report.imported[HKWorkoutRouteTypeIdentifier] == 1)
        #expect(expected.skipped["WorkoutRoute whose GPX file is missing from the export"] == 1)
        #expect(report.duplicates == 2)
        #expect(try await AppleHealthImporterTests.count(store) == 7)
        // Counted, not imported: no clinical-record importer was given, the CDA document is not read, and
        // the ECG file is only a header line (skipped with its reason).
        #expect(report.skipped["clinical record (no clinical-record importer)"] == 1)
        #expect(report.skipped["electrocardiogram not imported: an electrocardiogram CSV has no Recorded Date like 2019-06-25 09:36:02 -0700"] == 1)
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

    private static func offset(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        return (0...(bytes.count - pattern.count)).first { Array(bytes[$0..<$0 + pattern.count]) == pattern }
    }

    @Test("An archive whose export.xml breaks early stops its inflater: the error comes at once, nothing is stored")
    func earlyErrorStopsInflater() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A malformed element at the start, then 8 MiB of records (more than the 4 MiB buffer holds).
        var export = AppleHealthExportGenerator()
        export.raw(" <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"x\"></Recor>")
        // Varied records (identical ones would compress like a zip bomb and be refused as one).
        let records = (0..<60_000).map { index in
            AppleHealthExportGenerator.recordText(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "\(index * 7919 % 10_007)",
                                                  source: "x", version: nil, device: nil,
                                                  start: AppleHealthExportGenerator.exportDate(1_600_000_000 + index * 97),
                                                  end: AppleHealthExportGenerator.exportDate(1_600_000_000 + index * 97 + 60), metadata: [], indent: " ")
        }
        export.raw(records.joined(separator: "\n"))
        let zip = folder.appendingPathComponent("export.zip")
        try AppleHealthExportGenerator.writeZip(to: zip, exportXML: Data(export.document().utf8))
        let store = AppleHealthImporterTests.ownerStore()
        let error = await #expect(throws: AppleHealthExportError.self) {
            _ = try await AppleHealthImporter().importExport(at: zip, into: store)
        }
        #expect(error?.kind == .malformedXML)
        #expect(try await AppleHealthImporterTests.count(store) == 0)
    }

    @Test("Random damage to an export.zip never crashes: each imports or fails with a typed error")
    func fuzzArchive() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = [UInt8](try Data(contentsOf: try Self.appleZip(in: folder)))
        var random = SplitMix64(seed: 0x21F_A4C1)
        for round in 0..<40 {
            var bytes = original
            for _ in 0..<random.int(1...6) {
                let index = random.below(bytes.count)
                switch random.below(3) {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes[index] ^= 0xFF
                default: bytes = Array(bytes.prefix(max(4, index)))
                }
            }
            let url = folder.appendingPathComponent("fuzz-\(round).zip")
            try Data(bytes).write(to: url)
            do {
                _ = try await AppleHealthImporter().importExport(at: url, into: AppleHealthImporterTests.ownerStore())
            } catch is AppleHealthExportError {
            } catch is HKError {
                // A damaged value the store refuses.
            }
        }
    }

    @Test("Zip bombs and damaged archives: a typed error before anything is stored", arguments: [
        "export bomb", "clinical record bomb", "export over the size limit", "truncated archive", "not an archive", "no export.xml",
        "damaged entry", "size lie",
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
        case "size lie":
            // export.xml declares 1,000 bytes fewer than it inflates to (central directory and local header).
            zip = folder.appendingPathComponent("export.zip")
            try AppleHealthExportGenerator.writeZip(to: zip, exportXML: Data(full.utf8))
            var bytes = [UInt8](try Data(contentsOf: zip))
            let declared = UInt32(full.utf8.count - 1_000)
            let central = try #require(Self.offset(of: [0x50, 0x4B, 0x01, 0x02], in: bytes))
            for (offset, base) in [(22, 0), (24, central)] {
                for byte in 0..<4 { bytes[base + offset + byte] = UInt8(truncatingIfNeeded: declared >> (8 * UInt32(byte))) }
            }
            try Data(bytes).write(to: zip)
            expected = [.unsafeArchive, .malformedArchive]
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
