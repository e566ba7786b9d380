import FHIRCore
import Foundation
import HealthRecords
import OpenHealthKit
import Testing

/// The patient each imported clinical record keeps in its metadata: the Patient of the same input
/// its reference points at, found again through the metadata index.
@Suite("The patient of an imported record")
struct HealthRecordPatientTests {
    static let antonio = "Antonio_Castellanos_6d2eba67-5b4a-403f-a29f-e6da3f1ea963.json"

    @Test("a Synthea Bundle's records keep its Patient (name, birth date, Patient/id) and are found by it with the metadata index",
          .enabled(if: SharedData.available, SharedData.missing))
    func synthea() async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        var report = HealthRecordImportReport()
        try await importer.importInput(try SharedData.example("synthea-r4", Self.antonio), named: Self.antonio, into: &report)
        #expect(report.stored.count > 40)
        let reference = "Patient/2be9b668-847a-4437-b33a-bdc38c665e08"
        let predicate = HKQuery.predicateForObjects(withMetadataKey: HealthRecordPatient.referenceKey, allowedValues: [reference])
        let found = try await HKSampleQueryDescriptor(predicates: HKObjectType.allClinicalTypes.map { .clinicalRecord(type: $0, predicate: predicate) },
                                                      sortDescriptors: []).result(for: test.owner)
        #expect(found.count == report.stored.count)
        for record in found {
            let patient = try #require(HealthRecordPatient(metadata: record.metadata))
            #expect(patient.reference == reference)
            #expect(patient.person == HealthRecordPerson(givenNames: ["Antonio"], familyName: "Castellanos", birthDate: "1991-06-08"))
        }
    }

    @Test("a resource without its Patient keeps the reference and the display; one without a Patient reference keeps nothing")
    func withoutPatient() async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        let lines = """
            {"resourceType":"Condition","id":"c1","code":{"text":"Asthma"},"subject":{"reference":"Patient/p9","display":"Ada Lovelace"},\
            "recordedDate":"2024-01-02"}
            {"resourceType":"Condition","id":"c2","code":{"text":"Cough"},"subject":\
            {"reference":"https://fhir.example/r4/Patient/p9/_history/2"},"recordedDate":"2024-01-03"}
            {"resourceType":"Condition","id":"c3","code":{"text":"Cold"},"subject":{"identifier":{"value":"x"}},"recordedDate":"2024-01-04"}
            """
        var report = HealthRecordImportReport()
        try await importer.importInput(Array(lines.utf8), named: "conditions.ndjson", into: &report)
        let records = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.conditionRecord))],
                                                        sortDescriptors: [SortDescriptor(\HKClinicalRecord.startDate)]).result(for: test.owner)
        try #require(records.count == 3)
        #expect(HealthRecordPatient(metadata: records[0].metadata)
                == HealthRecordPatient(reference: "Patient/p9", person: HealthRecordPerson(text: "Ada Lovelace")))
        #expect(HealthRecordPatient(metadata: records[1].metadata) == HealthRecordPatient(reference: "Patient/p9", person: nil))
        #expect(HealthRecordPatient(metadata: records[2].metadata) == nil)
    }

    @Test("references are normalized to Patient/id", arguments: [
        ("urn:uuid:abc", "Patient/abc"), ("Patient/abc", "Patient/abc"), (" https://x.example/fhir/Patient/abc/_history/1 ", "Patient/abc"),
        ("resource:0", "resource:0"), ("", ""), ("Patient/", "Patient/"),
    ])
    func normalized(_ pair: (String, String)) {
        #expect(HealthRecordPatient.normalized(pair.0) == pair.1)
    }

    @Test("property: normalizing is idempotent and the metadata gives back the patient, for random references and names")
    func property() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aé /:-Patient_urn:uuid0123456789.,'") + ["\u{0}", "\n", "🙂"]
        func word(_ length: Int) -> String { String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" }) }
        for _ in 0..<2_000 {
            let reference = HealthRecordPatient.normalized(word(Int.random(in: 0...24, using: &generator)))
            #expect(HealthRecordPatient.normalized(reference) == reference)
            let given = (0..<Int.random(in: 0...2, using: &generator)).map { _ in "G" + word(4).filter { $0 != " " } }
            let family = Bool.random(using: &generator) ? "F" + word(6) : nil
            let birthDate = Bool.random(using: &generator) ? "19\(Int.random(in: 10...99, using: &generator))-01-02" : nil
            let person = given.isEmpty && family == nil && birthDate == nil ? nil
                : HealthRecordPerson(givenNames: given, familyName: family, birthDate: birthDate)
            let patient = HealthRecordPatient(reference: reference, person: person)
            let back = HealthRecordPatient(metadata: patient.metadata)
            if reference.isEmpty && person == nil { #expect(back == nil) } else { #expect(back == patient) }
        }
        // Metadata of the wrong shape is no patient, never a crash.
        #expect(HealthRecordPatient(metadata: [HealthRecordPatient.referenceKey: 7]) == nil)
        #expect(HealthRecordPatient(metadata: nil) == nil)
    }
}
