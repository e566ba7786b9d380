import AppleHealthClinicalRecords
import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

@Suite("Apple Health export: clinical records")
struct AppleHealthClinicalRecordImporterTests {
    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-records-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private static func records(_ store: HKHealthStore, _ type: HKClinicalTypeIdentifier) async throws -> [HKClinicalRecord] {
        try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(type))], sortDescriptors: []).result(for: store)
    }

    /// A DSTU2 Condition (Apple's Argonaut records): its string `clinicalStatus` is not valid R4.
    private static let dstu2Condition = """
        {"resourceType":"Condition","id":"c-17","patient":{"reference":"Patient/1"},"code":{"text":"Asthma"},\
        "clinicalStatus":"active","verificationStatus":"confirmed","onsetDateTime":"2019-03-01"}
        """

    @Test("clinical-records/*.json in export.zip are stored with the ClinicalRecord element's provider; a re-run reports them already stored")
    func zip() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = AppleHealthExportGenerator.clinicalRecord
        let zip = folder.appendingPathComponent("export.zip")
        try AppleHealthExportGenerator.writeZip(to: zip, exportXML: Data(AppleHealthExportGenerator.full().document().utf8), files: [
            (path: "clinical-records/\(record.name)", bytes: Data(record.json.utf8)),
            (path: "clinical-records/Condition-c-17.json", bytes: Data(Self.dstu2Condition.utf8)),
            (path: "clinical-records/Patient-1.json", bytes: Data(#"{"resourceType":"Patient","id":"1"}"#.utf8)),
            (path: "clinical-records/Broken.json", bytes: Data("{not json".utf8)),
        ])
        let store = HKHealthStore(configuration: .init(location: .inMemory, role: .owner))
        let importer = AppleHealthImporter(clinicalRecords: AppleHealthClinicalRecordImporter(store: store))
        let report = try await importer.importExport(at: zip, into: store)
        #expect(report.imported[HKClinicalTypeIdentifier.labResultRecord.rawValue] == 1)
        #expect(report.imported[HKClinicalTypeIdentifier.conditionRecord.rawValue] == 1)
        #expect(report.skipped["clinical record not stored: Patient is not a clinical record"] == 1)
        #expect(report.skipped["clinical record not stored: unreadable resource"] == 1)
        #expect(report.importedCount == 12)

        let lab = try #require(try await Self.records(store, .labResultRecord).first)
        #expect(lab.fhirResource?.identifier == "7C1A")
        #expect(lab.fhirResource?.fhirVersion.fhirRelease == .r4)
        #expect(lab.sourceRevision.source.name == "Mercy Hospital")
        // No ClinicalRecord element names the Condition: read as R4, refused, then as DSTU2.
        let condition = try #require(try await Self.records(store, .conditionRecord).first)
        #expect(condition.fhirResource?.fhirVersion.fhirRelease == .dstu2)
        #expect(condition.sourceRevision.source.name == "Health Records")

        // Imported again: 0 new, both records already in the store, not stored twice.
        let again = try await importer.importExport(at: zip, into: store)
        #expect(again.imported[HKClinicalTypeIdentifier.labResultRecord.rawValue] == nil)
        #expect(again.imported[HKClinicalTypeIdentifier.conditionRecord.rawValue] == nil)
        #expect(again.alreadyStored[HKClinicalTypeIdentifier.labResultRecord.rawValue] == 1)
        #expect(again.alreadyStored[HKClinicalTypeIdentifier.conditionRecord.rawValue] == 1)
        #expect(try await Self.records(store, .labResultRecord).count == 1)
        #expect(try await Self.records(store, .conditionRecord).count == 1)
    }

    @Test("An export.xml's clinical-records folder beside it is read too")
    func folderBeside() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = folder.appendingPathComponent("clinical-records")
        try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)
        let record = AppleHealthExportGenerator.clinicalRecord
        try Data(record.json.utf8).write(to: records.appendingPathComponent(record.name))
        let xml = folder.appendingPathComponent("export.xml")
        try Data(AppleHealthExportGenerator.full().document().utf8).write(to: xml)
        let store = HKHealthStore(configuration: .init(location: .inMemory, role: .owner))
        let report = try await AppleHealthImporter(clinicalRecords: AppleHealthClinicalRecordImporter(store: store))
            .importExport(at: xml, into: store)
        #expect(report.imported[HKClinicalTypeIdentifier.labResultRecord.rawValue] == 1)
        #expect(try await Self.records(store, .labResultRecord).first?.sourceRevision.source.name == "Mercy Hospital")
    }
}
