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

    @Test("a resource without its Patient keeps the reference and the display; one without a Patient reference keeps an empty reference")
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
        #expect(records[2].metadata?[HealthRecordPatient.referenceKey] as? String == "")
    }

    static let conditions = """
        {"resourceType":"Condition","id":"c1","code":{"text":"Asthma"},"subject":{"reference":"Patient/r9","display":"R. E."},\
        "recordedDate":"2024-01-02"}
        {"resourceType":"Condition","id":"c2","code":{"text":"Cough"},"subject":{"reference":"urn:uuid:r9"},"recordedDate":"2024-01-03"}
        {"resourceType":"Condition","id":"c3","code":{"text":"Cold"},"subject":{"reference":"Patient/other"},"recordedDate":"2024-01-04"}
        """
    static let patient = """
        {"resourceType":"Patient","id":"r9","name":[{"family":"Example","given":["Rita"]}],"birthDate":"1950-03-04"}
        """

    static func byReference(_ store: HKHealthStore) async throws -> [String: [HealthRecordPatient?]] {
        let records = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.conditionRecord))],
                                                        sortDescriptors: []).result(for: store)
        return Dictionary(grouping: records.map { HealthRecordPatient(metadata: $0.metadata) }) { $0?.reference ?? "" }
    }

    @Test("a Patient in a file of its own names the records that refer to it, whichever file came first; importing either again stores nothing",
          arguments: [false, true])
    func patientInAnotherFile(patientFirst: Bool) async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        var report = HealthRecordImportReport()
        let files = [("conditions.ndjson", Self.conditions), ("Patient.ndjson", Self.patient)]
        for (name, text) in patientFirst ? files.reversed() : files {
            try await importer.importInput(Array(text.utf8), named: name, into: &report)
        }
        #expect(report.stored.count == 3 && report.refusals.isEmpty)
        let rita = HealthRecordPerson(givenNames: ["Rita"], familyName: "Example", birthDate: "1950-03-04")
        let found = try await Self.byReference(test.owner)
        #expect(found["Patient/r9"]?.count == 2)
        #expect(found["Patient/r9"]?.allSatisfy { $0?.person == rita } == true, "\(found)")
        #expect(found["Patient/other"]?.first??.person == nil)
        // The same files again: the records are already stored as they are, whichever order.
        var again = HealthRecordImportReport()
        for (name, text) in files.reversed() + files {
            try await importer.importInput(Array(text.utf8), named: name, into: &again)
        }
        #expect(again.stored.isEmpty && again.alreadyStoredCount == 6, "\(again.stored.count) stored again")
        #expect(try await Self.byReference(test.owner)["Patient/r9"]?.allSatisfy { $0?.person == rita } == true)
    }

    @Test("a Patient in an NDJSON file read in parts names the records of a later part")
    func ndjsonParts() async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        var report = HealthRecordImportReport()
        try await importer.importNDJSONPart(Array((Self.patient + "\n").utf8), firstLine: 1, named: "big.ndjson", into: &report)
        try await importer.importNDJSONPart(Array(Self.conditions.utf8), firstLine: 2, named: "big.ndjson", into: &report)
        let found = try await Self.byReference(test.owner)
        #expect(found["Patient/r9"]?.allSatisfy { $0?.person?.familyName == "Example" } == true, "\(found)")
    }

    @Test("""
        records stored before the import kept their patient get it once from their FHIR JSON, in place (the same UUIDs, nothing lost), \
        named after a Patient the store keeps; the pass then costs one lookup, and importing the same records again stores nothing
        """)
    func storedBefore() async throws {
        // The records as the import makes them, saved the old way: without the patient in their metadata.
        let model = TestStore()
        let importer = HealthRecordImporter(store: model.owner, verifier: try TestIssuer().verifier)
        var report = HealthRecordImportReport()
        var lines = Self.conditions + "\n"
        for index in 0..<600 {
            let time = String(format: "%02d:%02d", index % 60, index / 60)
            lines += """
                {"resourceType":"Observation","id":"o\(index)","status":"final","code":{"text":"Pulse"},\
                "subject":{"reference":"Patient/\(index % 3 == 0 ? "r9" : "other")"},"effectiveDateTime":"2020-01-01T00:\(time)Z",\
                "valueQuantity":{"value":\(60 + index % 30),"unit":"/min"}}

                """
        }
        lines += #"{"resourceType":"Observation","id":"nobody","status":"final","code":{"text":"Flu test"},"effectiveDateTime":"2024-02-02"}"# + "\n"
        try await importer.importInput(Array(lines.utf8), named: "all.ndjson", into: &report)
        try #require(report.stored.count == 604, "\(report.refusals)")
        let old = TestStore()
        let stripped = report.stored.compactMap { $0 as? HKClinicalRecord }.compactMap { record -> HKClinicalRecord? in
            guard let resource = record.fhirResource else { return nil }
            return HKClinicalRecord(type: record.clinicalType, startDate: record.startDate, endDate: record.endDate,
                                    displayName: record.displayName, fhirResource: resource)
        }
        try await old.owner.saveHealthRecords(stripped, source: HealthRecordImporter.source(named: "Health Records"))
        let oldImporter = HealthRecordImporter(store: old.owner, verifier: try TestIssuer().verifier)
        var patientReport = HealthRecordImportReport()
        try await oldImporter.importInput(Array(Self.patient.utf8), named: "Patient.ndjson", into: &patientReport)

        #expect(try await HealthRecordPatient.completeStoredRecords(in: old.owner) == 604)
        #expect(try await old.owner.hasCompletedStorePass(HealthRecordPatient.storedRecordsPass))
        #expect(try await HealthRecordPatient.completeStoredRecords(in: old.owner) == 0)
        let all = try await HKSampleQueryDescriptor(predicates: HKObjectType.allClinicalTypes.map { .clinicalRecord(type: $0) },
                                                    sortDescriptors: []).result(for: old.owner)
        #expect(Set(all.map(\.uuid)) == Set(stripped.map(\.uuid)))
        let unkeyed = NSCompoundPredicate(notPredicateWithSubpredicate: HKQuery.predicateForObjects(withMetadataKey: HealthRecordPatient.referenceKey))
        #expect(try await HKSampleQueryDescriptor(predicates: HKObjectType.allClinicalTypes.map { .clinicalRecord(type: $0, predicate: unkeyed) },
                                                  sortDescriptors: []).result(for: old.owner).isEmpty)
        let rita = HealthRecordPerson(givenNames: ["Rita"], familyName: "Example", birthDate: "1950-03-04")
        for record in all {
            let patient = HealthRecordPatient(metadata: record.metadata)
            switch record.fhirResource?.identifier {
            case "nobody": #expect(patient == nil && record.metadata?[HealthRecordPatient.referenceKey] as? String == "")
            case "c1": #expect(patient?.reference == "Patient/r9" && patient?.person == rita)
            case "c3": #expect(patient == HealthRecordPatient(reference: "Patient/other", person: nil))
            default: #expect(patient?.reference == "Patient/r9" ? patient?.person == rita : patient?.person == nil)
            }
        }
        // Found by the index: a third of the pulses and two conditions are Rita's.
        let rita9 = HKQuery.predicateForObjects(withMetadataKey: HealthRecordPatient.referenceKey, allowedValues: ["Patient/r9"])
        #expect(try await HKSampleQueryDescriptor(predicates: HKObjectType.allClinicalTypes.map { .clinicalRecord(type: $0, predicate: rita9) },
                                                  sortDescriptors: []).result(for: old.owner).count == 202)
        // Importing the same file again (its Patient kept in the store) stores nothing.
        var again = HealthRecordImportReport()
        try await oldImporter.importInput(Array(lines.utf8), named: "all.ndjson", into: &again)
        #expect(again.stored.isEmpty && again.alreadyStoredCount == 604, "\(again.stored.count) stored again")
    }

    @Test("a Patient only a health card's own references point at (resource:0) is not kept for other files")
    func cardReferencesStayInTheirFile() async throws {
        let test = TestStore()
        let bundle = """
            {"resourceType":"Bundle","type":"collection","entry":[
            {"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"family":"Anyperson","given":["Jane"]}],"birthDate":"1961-01-20"}},
            {"fullUrl":"resource:1","resource":{"resourceType":"Condition","id":"k1","code":{"text":"Asthma"},\
            "subject":{"reference":"resource:0"},"recordedDate":"2024-01-02"}}]}
            """
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        var report = HealthRecordImportReport()
        try await importer.importInput(Array(bundle.utf8), named: "bundle.json", into: &report)
        let other = #"{"resourceType":"Condition","id":"k2","code":{"text":"Cough"},"subject":{"reference":"resource:0"},"recordedDate":"2024-01-03"}"#
        try await importer.importInput(Array(other.utf8), named: "other.json", into: &report)
        let found = try await Self.byReference(test.owner)["resource:0"] ?? []
        #expect(found.count == 2 && found.filter { $0?.person?.familyName == "Anyperson" }.count == 1, "\(found)")
        #expect(try await test.owner.healthRecordPatients(references: ["resource:0"]).isEmpty)
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
