import FHIRCore
import Foundation
import HealthRecords
import OpenHealthKit
import Testing

/// The test code each imported lab result keeps in its metadata, found again through the
/// metadata index, and given once to lab results stored before the import kept it.
@Suite("The test code of an imported lab result")
struct HealthRecordTestCodeTests {
    static let lines = """
        {"resourceType":"Observation","id":"a1","status":"final","category":[{"coding":[{"code":"laboratory"}]}],\
        "code":{"coding":[{"display":"no code"},{"system":"http://loinc.org","code":"4548-4"}],"text":"A1c"},\
        "effectiveDateTime":"2024-01-02","valueQuantity":{"value":5.4,"unit":"%"}}
        {"resourceType":"Observation","id":"a2","status":"final","category":[{"coding":[{"code":"laboratory"}]}],\
        "code":{"text":"Glucose, fasting"},"effectiveDateTime":"2024-01-03","valueQuantity":{"value":90,"unit":"mg/dL"}}
        {"resourceType":"Observation","id":"a3","status":"final","category":[{"coding":[{"code":"laboratory"}]}],\
        "code":{"coding":[{"display":"Urine test"}]},"effectiveDateTime":"2024-01-04","valueString":"negative"}
        {"resourceType":"Condition","id":"c1","code":{"coding":[{"system":"http://snomed.info/sct","code":"195967001"}]},\
        "subject":{"reference":"Patient/p1"},"recordedDate":"2024-01-05"}
        """

    @Test("the import keys each lab result by its first coding with a code, else its text, else empty; other records are not keyed")
    func importKeys() async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        var report = HealthRecordImportReport()
        try await importer.importInput(Array(Self.lines.utf8), named: "labs.ndjson", into: &report)
        let labs = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.labResultRecord))],
                                                     sortDescriptors: [SortDescriptor(\HKClinicalRecord.startDate)]).result(for: test.owner)
        try #require(labs.count == 3)
        #expect(labs.map { $0.metadata?[HealthRecordTestCode.key] as? String } == ["http://loinc.org|4548-4", "text|Glucose, fasting", ""])
        let conditions = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.conditionRecord))],
                                                           sortDescriptors: []).result(for: test.owner)
        #expect(conditions.count == 1)
        #expect(conditions.first?.metadata?[HealthRecordTestCode.key] == nil)
        let same = HKQuery.predicateForObjects(withMetadataKey: HealthRecordTestCode.key, allowedValues: ["text|Glucose, fasting"])
        let found = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.labResultRecord), predicate: same)],
                                                      sortDescriptors: []).result(for: test.owner)
        #expect(found.map(\.fhirResource?.identifier) == ["a2"])
        // Importing the same file again stores nothing: the records are the same with their key.
        var again = HealthRecordImportReport()
        try await importer.importInput(Array(Self.lines.utf8), named: "labs.ndjson", into: &again)
        #expect(again.stored.isEmpty)
        #expect(again.alreadyStoredCount == 4)
    }

    @Test("lab results stored without their key get it once, in place; the pass then costs a lookup and is remembered")
    func storedRecordsPass() async throws {
        let test = TestStore()
        // The records as the import makes them, saved the old way: without the test code in their metadata.
        var old: [HKClinicalRecord] = []
        for (index, line) in Self.lines.split(separator: "\n").enumerated() {
            let object = try #require(try JSONParser.parse(Array(line.utf8)).objectValue)
            let type: HKClinicalTypeIdentifier = object["resourceType"]?.stringValue == "Observation" ? .labResultRecord : .conditionRecord
            let date = Date(timeIntervalSince1970: 1_704_153_600 + Double(index) * 86_400)
            old.append(HKClinicalRecord(type: HKClinicalType(type), startDate: date, endDate: date, displayName: "r\(index)",
                                        fhirResource: HKFHIRResource(resourceType: HKFHIRResourceType(rawValue: object["resourceType"]?.stringValue ?? ""),
                                                                     identifier: object["id"]?.stringValue ?? "", data: Data(line.utf8), sourceURL: nil,
                                                                     fhirVersion: .primaryR4())))
        }
        try await test.owner.saveHealthRecords(old, source: HKSource(name: "Old import", bundleIdentifier: "org.example.old"))
        #expect(try await HealthRecordTestCode.completeStoredRecords(in: test.owner) == 3)
        #expect(try await test.owner.hasCompletedStorePass(HealthRecordTestCode.storedRecordsPass))
        let labs = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.labResultRecord))],
                                                     sortDescriptors: [SortDescriptor(\HKClinicalRecord.startDate)]).result(for: test.owner)
        #expect(labs.map { $0.metadata?[HealthRecordTestCode.key] as? String } == ["http://loinc.org|4548-4", "text|Glucose, fasting", ""])
        #expect(Set(labs.map(\.uuid)) == Set(old.prefix(3).map(\.uuid)))
        #expect(labs.map(\.fhirResource?.data) == old.prefix(3).map(\.fhirResource?.data))
        #expect(try await HealthRecordTestCode.completeStoredRecords(in: test.owner) == 0)
    }

    @Test("""
        a lab result deleted before the pass ran and restored after it gets its key: restoring a record makes the passes run again, \
        and they change only what lacks their metadata
        """)
    func restoredAfterThePass() async throws {
        let test = TestStore()
        let lines = Self.lines.split(separator: "\n")
        let object = try #require(try JSONParser.parse(Array(lines[0].utf8)).objectValue)
        try #require(object["resourceType"]?.stringValue == "Observation")
        let date = Date(timeIntervalSince1970: 1_704_153_600)
        // Saved the old way (no test code in its metadata), then deleted before the pass.
        let old = HKClinicalRecord(type: HKClinicalType(.labResultRecord), startDate: date, endDate: date, displayName: "Hemoglobin A1c",
                                   fhirResource: HKFHIRResource(resourceType: .observation, identifier: object["id"]?.stringValue ?? "",
                                                                data: Data(lines[0].utf8), sourceURL: nil, fhirVersion: .primaryR4()))
        try await test.owner.saveHealthRecords([old], source: HKSource(name: "Old import", bundleIdentifier: "org.example.old"))
        try await test.owner.delete(old)
        #expect(try await HealthRecordTestCode.completeStoredRecords(in: test.owner) == 0)
        #expect(try await HealthRecordPatient.completeStoredRecords(in: test.owner) == 0)
        #expect(try await test.owner.hasCompletedStorePass(HealthRecordTestCode.storedRecordsPass))

        let item = try #require(try await test.owner.recentlyDeletedItems().first)
        let restored = try #require(try await test.owner.restoreRecentlyDeleted([item.id]).first)
        #expect(try await test.owner.hasCompletedStorePass(HealthRecordTestCode.storedRecordsPass) == false)
        #expect(try await test.owner.hasCompletedStorePass(HealthRecordPatient.storedRecordsPass) == false)
        #expect(try await HealthRecordTestCode.completeStoredRecords(in: test.owner) == 1)
        #expect(try await HealthRecordPatient.completeStoredRecords(in: test.owner) == 1)
        let labs = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.labResultRecord))],
                                                     sortDescriptors: []).result(for: test.owner)
        #expect(labs.map(\.uuid) == [restored])
        #expect(labs.first?.metadata?[HealthRecordTestCode.key] as? String == HealthRecordTestCode.code(json: Data(lines[0].utf8)))
        #expect(labs.first?.metadata?[HealthRecordPatient.referenceKey] != nil)
        // Restoring a sample that is not a clinical record leaves the passes as they are.
        let steps = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 10), start: date, end: date)
        try await test.owner.save(steps)
        try await test.owner.delete(steps)
        let stepItem = try #require(try await test.owner.recentlyDeletedItems().first { $0.sample is HKQuantitySample })
        try await test.owner.restoreRecentlyDeleted([stepItem.id])
        #expect(try await test.owner.hasCompletedStorePass(HealthRecordTestCode.storedRecordsPass))
    }

    @Test("the key is the same whatever the resource's shape: property-checked against a direct reading of code.coding and code.text")
    func keyProperty() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var codings: [[String: String]] = []
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                var coding: [String: String] = [:]
                if Bool.random(using: &generator) { coding["system"] = "s\(Int.random(in: 0...9, using: &generator))" }
                if Bool.random(using: &generator) { coding["code"] = "c\(Int.random(in: 0...9, using: &generator))" }
                codings.append(coding)
            }
            let text: String? = Bool.random(using: &generator) ? "t \(Int.random(in: 0...9, using: &generator))" : nil
            var code: [String: Any] = ["coding": codings]
            if let text { code["text"] = text }
            let json = try JSONSerialization.data(withJSONObject: ["resourceType": "Observation", "code": code])
            let expected: String? = codings.first(where: { $0["code"] != nil }).map { "\($0["system"] ?? "")|\($0["code"] ?? "")" }
                ?? text.map { "text|\($0)" }
            #expect(HealthRecordTestCode.code(json: json) == expected)
        }
        #expect(HealthRecordTestCode.code(json: Data("not json".utf8)) == nil)
        #expect(HealthRecordTestCode.code(json: Data(#"{"resourceType":"Observation"}"#.utf8)) == nil)
    }
}
