import FHIRCore
import Foundation
import HealthRecords
import OpenHealthKit
import SmartHealthCards
import Testing

/// The official R4 and DSTU2 examples, Synthea patients and SMART Health Card examples, imported
/// as a person would: each clinical resource lands in the right type with its bytes as given.
@Suite("Importing the official examples and Synthea", .enabled(if: SharedData.available, SharedData.missing))
struct ExampleImportTests {
    /// The resources of a file: itself, or a Bundle's entries (with the JSON each entry holds).
    private func resources(of bytes: [UInt8]) throws -> [(object: JSONObject, id: String?)] {
        let value = try JSONParser.parse(bytes)
        guard let root = value.objectValue else { return [] }
        guard root["resourceType"]?.stringValue == "Bundle" else { return [(root, root["id"]?.stringValue)] }
        return (root["entry"]?.arrayValue ?? []).compactMap { entry in
            guard let resource = entry.objectValue?["resource"]?.objectValue else { return nil }
            // Without an id, a transaction entry's resource is known by its fullUrl (urn:uuid:…).
            let fullURL = entry.objectValue?["fullUrl"]?.stringValue
            return (resource, resource["id"]?.stringValue ?? fullURL?.split(separator: ":").last.map(String.init))
        }
    }

    /// The type HealthKit files a resource under, written out here rather than taken from the
    /// importer's classifier, so a classification error fails this test.
    static func expectedType(_ resource: JSONObject) -> HKClinicalTypeIdentifier? {
        let byType: [String: HKClinicalTypeIdentifier] = [
            "AllergyIntolerance": .allergyRecord, "Condition": .conditionRecord, "Immunization": .immunizationRecord,
            "DiagnosticReport": .labResultRecord, "MedicationStatement": .medicationRecord, "MedicationRequest": .medicationRecord,
            "MedicationOrder": .medicationRecord, "MedicationDispense": .medicationRecord, "Procedure": .procedureRecord,
            "Coverage": .coverageRecord, "DocumentReference": .clinicalNoteRecord,
        ]
        guard let resourceType = resource["resourceType"]?.stringValue else { return nil }
        guard resourceType == "Observation" else { return byType[resourceType] }
        // R4 has an array of categories, DSTU2 one; a vital sign says so in a coding's code.
        let category = resource["category"].map { JSONWriter.string($0) } ?? ""
        return category.contains("\"code\":\"vital-signs\"") ? .vitalSignRecord : .labResultRecord
    }

    /// Imports files and checks every clinical resource against the stored records.
    private func importAndCheck(folder: String, files: [String], version: HKFHIRVersion) async throws -> Int {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier, options: .init(fhirVersion: version))
        var report = HealthRecordImportReport()
        var expected: [String: (type: HKClinicalTypeIdentifier, json: JSONValue)] = [:]
        for file in files {
            let bytes = try SharedData.example(folder, file)
            try await importer.importInput(bytes, named: file, into: &report)
            for (object, id) in try resources(of: bytes) {
                guard let type = Self.expectedType(object), let id else { continue }
                expected["\(object["resourceType"]?.stringValue ?? "")/\(id)"] = (type, .object(object))
            }
        }
        #expect(report.refusals.isEmpty, "\(report.refusals.prefix(3))")
        #expect(report.unreadable.isEmpty, "\(report.unreadable.prefix(3))")
        var found: [String: HKClinicalRecord] = [:]
        for type in HKObjectType.allClinicalTypes {
            let records = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: type)], sortDescriptors: []).result(for: test.owner)
            for record in records {
                let resource = try #require(record.fhirResource)
                found["\(resource.resourceType.rawValue)/\(resource.identifier)"] = record
                #expect(resource.fhirVersion == version)
                // The stored bytes are one JSON resource, equal to the input's by value (and,
                // for a file holding one resource, byte for byte; see the next test).
                let stored = try JSONParser.parse(Array(resource.data))
                if let want = expected["\(resource.resourceType.rawValue)/\(resource.identifier)"] {
                    #expect(record.clinicalType == HKClinicalType(want.type), "\(resource.identifier)")
                    #expect(stored == want.json, "\(resource.resourceType.rawValue)/\(resource.identifier) changed")
                }
            }
        }
        #expect(Set(found.keys).symmetricDifference(expected.keys).isEmpty, "\(Set(found.keys).symmetricDifference(expected.keys).sorted())")
        return found.count
    }

    @Test("Every R4 spec example of a clinical type imports into the right type, unchanged")
    func r4Examples() async throws {
        let count = try await importAndCheck(folder: "r4-spec", files: SharedData.exampleFiles("r4-spec"), version: .primaryR4())
        #expect(count > 300)
    }

    @Test("Every Synthea resource of a clinical type imports into the right type, unchanged")
    func synthea() async throws {
        let count = try await importAndCheck(folder: "synthea-r4", files: SharedData.exampleFiles("synthea-r4"), version: .primaryR4())
        #expect(count > 1_000)
    }

    @Test("Synthea patients imported again: 0 stored, every record already in the store, nothing duplicated or replaced")
    func syntheaReimport() async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier,
                                            options: .init(fhirVersion: .primaryR4(), now: Date(timeIntervalSinceReferenceDate: 790_000_000)))
        let files = Array(SharedData.exampleFiles("synthea-r4").prefix(3))
        var first = HealthRecordImportReport()
        for file in files { try await importer.importInput(try SharedData.example("synthea-r4", file), named: file, into: &first) }
        #expect(first.stored.count > 100)
        #expect(first.alreadyStored.isEmpty)
        let anchor = try await HKAnchoredObjectQueryDescriptor(predicates: HKObjectType.allClinicalTypes.map { .clinicalRecord(type: $0) },
                                                               anchor: nil).result(for: test.owner).newAnchor

        var again = HealthRecordImportReport()
        for file in files { try await importer.importInput(try SharedData.example("synthea-r4", file), named: file, into: &again) }
        #expect(again.stored.isEmpty)
        #expect(again.alreadyStored == first.storedByType)
        #expect(again.alreadyStoredCount == first.stored.count)
        // Nothing was written: no record added, none replaced (a replacement leaves a deleted object).
        let changes = try await HKAnchoredObjectQueryDescriptor(predicates: HKObjectType.allClinicalTypes.map { .clinicalRecord(type: $0) },
                                                                anchor: anchor).result(for: test.owner)
        #expect(changes.addedSamples.isEmpty && changes.deletedObjects.isEmpty)
    }

    @Test("DSTU2 spec examples import as DSTU2, each valid by the DSTU2 definitions (ModelsDSTU2)")
    func dstu2() async throws {
        let count = try await importAndCheck(folder: "dstu2-spec", files: SharedData.exampleFiles("dstu2-spec"), version: .primaryDSTU2())
        #expect(count > 50)
    }

    @Test("A file holding one resource is stored byte for byte, whitespace inside it included")
    func byteForByte() async throws {
        let test = TestStore()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        var report = HealthRecordImportReport()
        let file = "Observation-f001.json"
        let bytes = try SharedData.example("r4-spec", file)
        try await importer.importInput(bytes, named: file, into: &report)
        let record = try #require(report.stored.first as? HKClinicalRecord)
        let trimmed = bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        var end = trimmed.endIndex
        while end > trimmed.startIndex, [0x20, 0x0A, 0x0D, 0x09].contains(trimmed[end - 1]) { end -= 1 }
        #expect(Array(record.fhirResource?.data ?? Data()) == Array(trimmed[..<end]))
        #expect(record.clinicalType == HKClinicalType(.labResultRecord))
        #expect(record.displayName == "Glucose [Moles/volume] in Blood")
    }

    @Test("The official SMART Health Card examples import in every form; the revoked one is refused")
    func healthCards() async throws {
        let test = TestStore()
        let resolver = FolderKeyResolver([SharedData.cardIssuer: SharedData.cardExamples.appendingPathComponent("issuer")])
        let importer = HealthRecordImporter(store: test.owner, verifier: SHCVerifier(resolver: resolver, now: Date()))
        var report = HealthRecordImportReport()
        for name in ["example-00-d-jws.txt", "example-00-e-file.smart-health-card", "example-00-f-qr-code-numeric-value-0.txt",
                     "example-01-e-file.smart-health-card", "example-02-e-file.smart-health-card", "example-03-d-jws.txt"] {
            let bytes = Array(try Data(contentsOf: SharedData.cardExamples.appendingPathComponent(name)))
            try await importer.importInput(bytes, named: name, into: &report)
        }
        // 00 three times is one card, 01 one more. The verifier finds 02 invalid (its references are
        // not resource:N, rule 29, as `health shc verify` reports) and 03 revoked: both are refused.
        let cards = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKObjectType.verifiableClinicalRecordType())],
                                                      sortDescriptors: []).result(for: test.owner).compactMap { $0 as? HKVerifiableClinicalRecord }
        #expect(cards.count == 2)
        #expect(report.refusals.map(\.input) == ["example-02-e-file.smart-health-card", "example-03-d-jws.txt"])
        #expect(report.refusals.first?.reasons.contains { $0.contains("bundle.reference") } == true)
        #expect(report.refusals.last?.reasons.contains { $0.contains("revocation.revoked") } == true)
        let john = try #require(cards.first { $0.itemNames.count == 3 })
        #expect(john.subject.fullName == "John B. Anyperson")
        #expect(john.subject.dateOfBirthComponents == DateComponents(year: 1951, month: 1, day: 20))
        #expect(john.issuerIdentifier == SharedData.cardIssuer)
        #expect(john.recordTypes.contains(HKVerifiableClinicalRecordCredentialType.immunization.rawValue))
        #expect(john.relevantDate == (DateTime("2022-09-05")).asDate())
        let jws = try String(contentsOf: SharedData.cardExamples.appendingPathComponent("example-00-d-jws.txt"), encoding: .utf8)
        #expect(john.dataRepresentation == Data(jws.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
        #expect(john.sourceRevision.source.name == "spec.smarthealth.cards")
    }
}
