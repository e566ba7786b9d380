@testable import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import Testing

/// An export.zip's files are found through its central directory read once: reading all of
/// `clinical-records/` is linear in their number (it was quadratic: each file reopened the
/// archive and looked its name up entry by entry).
@Suite("Apple Health export.zip index")
struct ArchiveIndexTests {
    @Test("Reading every clinical-records file opens the archive once and visits each central-directory entry once, whatever their number",
          arguments: [50, 400])
    func clinicalRecordsReadOnce(count: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("export.zip")
        let files = (0..<count).map { index in
            (path: "clinical-records/Observation-\(index).json", bytes: Data(#"{"resourceType":"Observation","id":"\#(index)"}"#.utf8))
        }
        try AppleHealthExportGenerator.writeZip(to: url, exportXML: Data(AppleHealthExportGenerator.full().document().utf8), files: files)

        let container = try ExportContainer(url: url, limits: .init())
        #expect(container.clinicalRecordFiles.count == count)
        for name in container.clinicalRecordFiles {
            let bytes = try container.read(folder: "clinical-records", name: name)
            let id = name.dropFirst("Observation-".count).dropLast(".json".count)
            #expect(String(decoding: bytes, as: UTF8.self) == #"{"resourceType":"Observation","id":"\#(id)"}"#)
        }
        // A name the archive does not have is an error, not a walk.
        #expect(throws: AppleHealthExportError.self) { try container.read(folder: "clinical-records", name: "missing.json") }
        #expect(container.archiveReads == ArchiveIndex.Reads(opens: 1, entriesVisited: count + 1))
    }

    @Test("A file of the archive larger than the limit is refused with a typed error")
    func limitsHold() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("export.zip")
        try AppleHealthExportGenerator.writeZip(to: url, exportXML: Data(AppleHealthExportGenerator.full().document().utf8),
                                                files: [(path: "clinical-records/Big.json", bytes: Data(repeating: 0x20, count: 4096))])
        let container = try ExportContainer(url: url, limits: .init(maximumFileSize: 1 << 20))
        #expect(try container.read(folder: "clinical-records", name: "Big.json").count == 4096)
        // Refused from the central directory, before anything is read.
        #expect(throws: AppleHealthExportError.self) { try ExportContainer(url: url, limits: .init(maximumExportSize: 1 << 20, maximumFileSize: 1024)) }
    }
}
