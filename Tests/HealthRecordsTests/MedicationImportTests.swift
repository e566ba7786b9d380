import Foundation
@testable import HealthRecords
import OpenHealthKit
import Testing
import TestSupport

/// A provider's MedicationRequest and MedicationStatement records become tracked medications
/// (`HKUserAnnotatedMedication`) with their RxNorm codings, once per concept.
@Suite("Medications from a provider's records")
struct MedicationImportTests {
    static let rxNorm = "http://www.nlm.nih.gov/research/umls/rxnorm"

    static func request(_ id: String, code: String, text: String, timed: Bool, status: String = "active") -> String {
        let dosage = timed ? #","dosageInstruction":[{"timing":{"repeat":{"frequency":1,"period":1,"periodUnit":"d"}}}]"# : ""
        return #"{"resourceType":"MedicationRequest","id":"\#(id)","status":"\#(status)","intent":"order","subject":{"reference":"Patient/p1"},"#
            + #""authoredOn":"2024-03-01","#
            + #""medicationCodeableConcept":{"coding":[{"system":"\#(rxNorm)","code":"\#(code)","display":"\#(text)"}],"text":"\#(text)"}"#
            + dosage + "}"
    }

    static let statementWithContainedMedication = """
        {"resourceType":"MedicationStatement","id":"ms1","status":"active","subject":{"reference":"Patient/p1"},"effectiveDateTime":"2024-02-01",\
        "contained":[{"resourceType":"Medication","id":"med1","code":{"coding":[{"system":"\(rxNorm)","code":"197361","display":"Amlodipine 5 MG Oral \
        Tablet"}]},\
        "form":{"text":"Tablet"}}],"medicationReference":{"reference":"#med1"}}
        """

    @Test("A MedicationRequest bundle imported twice tracks each medication once, with its RxNorm codings")
    func importTwiceStoresOnce() async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        let bundle = R4Fixtures.bundle([
            Self.request("mr1", code: "314076", text: "Lisinopril 10 MG Oral Tablet", timed: true),
            Self.request("mr2", code: "314076", text: "Lisinopril 10 MG Oral Tablet", timed: true),
            Self.request("mr3", code: "895994", text: "120 ACTUAT Fluticasone propionate 0.044 MG/ACTUAT Metered Dose Inhaler", timed: false),
            Self.statementWithContainedMedication,
        ])
        for _ in 0..<2 {
            var report = HealthRecordImportReport()
            try await importer.importInput(Array(bundle.utf8), named: "meds.json", into: &report)
            #expect(report.refusals.isEmpty, "\(report.refusals)")
        }
        let medications = try await HKUserAnnotatedMedicationQueryDescriptor().result(for: test.owner)
        #expect(medications.count == 3)
        let byCode = Dictionary(uniqueKeysWithValues: medications.compactMap { medication in
            medication.medication.relatedCodings.first { $0.system == Self.rxNorm }.map { ($0.code, medication) }
        })
        #expect(Set(byCode.keys) == ["314076", "895994", "197361"])
        #expect(byCode["314076"]?.medication.displayText == "Lisinopril 10 MG Oral Tablet")
        #expect(byCode["314076"]?.medication.generalForm == .tablet)
        #expect(byCode["314076"]?.hasSchedule == true)
        #expect(byCode["895994"]?.medication.generalForm == .inhaler)
        #expect(byCode["895994"]?.hasSchedule == false)
        #expect(byCode["197361"]?.medication.displayText == "Amlodipine 5 MG Oral Tablet")
        #expect(byCode["197361"]?.medication.generalForm == .tablet)
        // The records themselves are stored as before, once each.
        let records = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.medicationRecord))], sortDescriptors: [])
            .result(for: test.owner)
        #expect(records.count == 4)
    }

    @Test("""
        A medication only finished records name is tracked archived, one entered in error not at all, one a current record also names stays current; \
        the person's archive choice survives a re-import
        """)
    func statusesDecideArchiving() async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        let bundle = R4Fixtures.bundle([
            Self.request("a1", code: "308182", text: "Amoxicillin 250 MG Oral Capsule", timed: true, status: "completed"),
            Self.request("e1", code: "860975", text: "Metformin 500 MG Oral Tablet", timed: true, status: "entered-in-error"),
            Self.request("l1", code: "314076", text: "Lisinopril 10 MG Oral Tablet", timed: true, status: "stopped"),
            Self.request("l2", code: "314076", text: "Lisinopril 10 MG Oral Tablet", timed: true, status: "active"),
        ])
        var report = HealthRecordImportReport()
        try await importer.importInput(Array(bundle.utf8), named: "meds.json", into: &report)
        #expect(report.refusals.isEmpty, "\(report.refusals)")
        func tracked() async throws -> [String: Bool] {
            Dictionary(uniqueKeysWithValues: try await HKUserAnnotatedMedicationQueryDescriptor().result(for: test.owner).compactMap { medication in
                medication.medication.relatedCodings.first { $0.system == Self.rxNorm }.map { ($0.code, medication.isArchived) }
            })
        }
        #expect(try await tracked() == ["308182": true, "314076": false])
        // The person takes amoxicillin again: unarchived, it stays so when the records come again.
        let amoxicillin = try #require(try await HKUserAnnotatedMedicationQueryDescriptor().result(for: test.owner)
            .first { $0.medication.relatedCodings.contains { $0.code == "308182" } })
        _ = try await test.owner.setMedication(amoxicillin, archived: false)
        var again = HealthRecordImportReport()
        try await importer.importInput(Array(bundle.utf8), named: "meds.json", into: &again)
        #expect(try await tracked() == ["308182": false, "314076": false])
    }

    @Test("Synthea patients' medications are tracked once per RxNorm concept, and again nothing more",
          .enabled(if: SharedData.available, SharedData.missing))
    func syntheaMedications() async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier, options: .init(allowOtherPerson: true))
        let files = Array(SharedData.exampleFiles("synthea-r4").prefix(3))
        var expected = Set<String>()
        for file in files {
            let bytes = try SharedData.example("synthea-r4", file)
            let bundle = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            for entry in (bundle["entry"] as? [[String: Any]]) ?? [] {
                guard let resource = entry["resource"] as? [String: Any],
                      ["MedicationRequest", "MedicationStatement"].contains(resource["resourceType"] as? String ?? ""),
                      let coding = ((resource["medicationCodeableConcept"] as? [String: Any])?["coding"] as? [[String: Any]])?
                        .first(where: { $0["system"] as? String == Self.rxNorm }),
                      let code = coding["code"] as? String else { continue }
                expected.insert(code)
            }
        }
        #expect(!expected.isEmpty)
        for _ in 0..<2 {
            for file in files {
                var report = HealthRecordImportReport()
                try await importer.importInput(try SharedData.example("synthea-r4", file), named: file, into: &report)
            }
            let medications = try await HKUserAnnotatedMedicationQueryDescriptor().result(for: test.owner)
            let codes = Set(medications.flatMap { $0.medication.relatedCodings.filter { $0.system == Self.rxNorm }.map(\.code) })
            #expect(codes == expected)
            #expect(medications.count == expected.count)
        }
    }

    @Test("Reading a record's medication never traps: random bytes and every truncation and byte flip of a real one")
    func conceptReaderIsTotal() {
        let valid = Array(Self.request("mr1", code: "314076", text: "Lisinopril 10 MG Oral Tablet", timed: true).utf8)
        #expect(MedicationConcepts.concept(inResource: Data(valid))?.codings.first?.code == "314076")
        var random = SplitMix64(seed: 36)
        for _ in 0..<500 {
            let bytes = (0..<Int(random.next() % 200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = MedicationConcepts.concept(inResource: Data(bytes))
        }
        for length in 0..<valid.count { _ = MedicationConcepts.concept(inResource: Data(valid.prefix(length))) }
        for index in valid.indices {
            var flipped = valid
            flipped[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            _ = MedicationConcepts.concept(inResource: Data(flipped))
        }
        // Wrong shapes are no medication, not an error.
        for json in [#"{"resourceType":"MedicationRequest","medicationCodeableConcept":[1,2]}"#,
                     #"{"resourceType":"MedicationRequest","medicationCodeableConcept":{"coding":"x","text":7}}"#,
                     ##"{"resourceType":"MedicationRequest","medicationReference":{"reference":"#nothing"},"contained":{}}"##,
                     #"{"resourceType":"Observation","medicationCodeableConcept":{"text":"x"}}"#, "[]", "null"] {
            #expect(MedicationConcepts.concept(inResource: Data(json.utf8)) == nil)
        }
    }
}
