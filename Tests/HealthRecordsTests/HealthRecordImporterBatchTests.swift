import Foundation
import HealthRecords
import OpenHealthKit
import Testing

/// ``HealthRecordImporter/prepareInput(_:named:into:)`` then ``HealthRecordImporter/store(_:into:batchSize:progress:)``:
/// what a progress bar over a long import relies on.
@Suite("Importing in batches with progress")
struct HealthRecordImporterBatchTests {
    /// How many laboratory records the store holds (through the public query API).
    static func labRecords(in store: HKHealthStore) async throws -> Int {
        let type = try #require(HKObjectType.clinicalType(forIdentifier: .labResultRecord))
        return try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: type)], sortDescriptors: []).result(for: store).count
    }

    /// A Bundle of `count` laboratory Observations with ids o0…o(count-1).
    static func bundle(count: Int) -> [UInt8] {
        let entries = (0..<count).map { index in
            """
            {"fullUrl":"https://fhir.example.org/Observation/o\(index)","resource":{"resourceType":"Observation","id":"o\(index)","status":"final",\
            "category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],\
            "code":{"coding":[{"system":"http://loinc.org","code":"2345-7"}]},"effectiveDateTime":"2024-01-\(String(format: "%02d", index % 28 + 1))",\
            "valueQuantity":{"value":\(90 + index),"unit":"mg/dL","system":"http://unitsofmeasure.org","code":"mg/dL"}}}
            """
        }
        return Array("{\"resourceType\":\"Bundle\",\"type\":\"searchset\",\"entry\":[\(entries.joined(separator: ","))]}".utf8)
    }

    @Test("Preparing stores nothing; storing in batches of 7 reports 7, 14, … up to every record, and every record is stored once")
    func batchesReportProgress() async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        var report = HealthRecordImportReport()
        let prepared = await importer.prepareInput(Self.bundle(count: 30), named: "labs.json", into: &report)
        let input = try #require(prepared)
        #expect(input.count == 30)
        #expect(report.stored.isEmpty)
        #expect(try await Self.labRecords(in: test.owner) == 0)

        var seen: [Int] = []
        try await importer.store(input, into: &report, batchSize: 7) { seen.append($0) }
        #expect(seen == [7, 14, 21, 28, 30])
        #expect(report.stored.count == 30)
        #expect(try await Self.labRecords(in: test.owner) == 30)

        // The same input again stores nothing: every record is already in the store; still 30.
        var again = HealthRecordImportReport()
        try await importer.importInput(Self.bundle(count: 30), named: "labs.json", into: &again)
        #expect(again.stored.isEmpty)
        #expect(again.alreadyStored == [HKClinicalTypeIdentifier.labResultRecord.rawValue: 30])
        #expect(try await Self.labRecords(in: test.owner) == 30)
    }

    @Test("An input with nothing to store prepares to nil and reports why")
    func unreadableInput() async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        var report = HealthRecordImportReport()
        let prepared = await importer.prepareInput(Array("{\"resourceType\": ".utf8), named: "broken.json", into: &report)
        #expect(prepared == nil)
        #expect(report.unreadable.map(\.input) == ["broken.json"])
    }
}
