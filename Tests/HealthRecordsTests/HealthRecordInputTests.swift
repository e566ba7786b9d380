import FHIRCore
import Foundation
import HealthRecords
import OpenHealthKit
import Testing
import TestSupport

@Suite("Reading an input: resources, Bundles, NDJSON and cards, detected by content")
struct HealthRecordInputTests {
    private func read(_ text: String, validate: Bool = true) throws -> HealthRecordInput {
        try HealthRecordInput.read(Array(text.utf8), validate: validate ? HealthRecordImporter.validateR4 : nil)
    }

    @Test("A Bundle's entries keep their exact bytes; its own errors are reported apart")
    func bundle() throws {
        let text = "{ \"resourceType\": \"Bundle\", \"type\": \"collection\", \"entry\": [ { \"fullUrl\": \"urn:uuid:1\", \"resource\": "
            + R4Fixtures.labResult + " }, {\"resource\":\n  " + R4Fixtures.patient + "\n} ] }"
        guard case .resources(let slices, let problems) = try read(text) else { Issue.record("not resources"); return }
        #expect(problems.isEmpty)
        #expect(slices.map(\.location) == ["entry[0]", "entry[1]"])
        #expect(String(decoding: slices[0].bytes, as: UTF8.self) == R4Fixtures.labResult)
        #expect(String(decoding: slices[1].bytes, as: UTF8.self) == R4Fixtures.patient)
        #expect(slices[0].fullURL == "urn:uuid:1")
        #expect(slices[0].issues.isEmpty)
    }

    @Test("An invalid resource in a Bundle carries its problems; the others none")
    func invalidEntry() throws {
        let broken = R4Fixtures.vitalSign.replacingOccurrences(of: "\"status\":\"final\",", with: "\"status\":\"finished\",")
        guard case .resources(let slices, _) = try read(R4Fixtures.bundle([broken, R4Fixtures.allergy])) else { Issue.record("not resources"); return }
        #expect(slices[0].issues.contains { $0.contains("status") })
        #expect(slices[1].issues.isEmpty)
        guard case .resources(let unchecked, _) = try read(R4Fixtures.bundle([broken]), validate: false) else { Issue.record("not resources"); return }
        #expect(unchecked[0].issues.isEmpty, "without a validator nothing is checked")
    }

    @Test("NDJSON: one resource per line, blank lines skipped, bad lines reported")
    func ndjson() throws {
        let text = [R4Fixtures.labResult, "", R4Fixtures.allergy, "{not json", R4Fixtures.patient].joined(separator: "\n") + "\n"
        guard case .resources(let slices, let problems) = try read(text) else { Issue.record("not resources"); return }
        #expect(slices.map(\.location) == ["line 1", "line 3", "line 5"])
        #expect(slices.map(\.resourceType) == ["Observation", "AllergyIntolerance", "Patient"])
        #expect(problems.count == 1 && problems[0].hasPrefix("line 4"))
    }

    @Test("Cards are handed to the card reader: JWS, shc:/ text, .smart-health-card and $health-cards-issue")
    func cards() throws {
        for text in ["eyJhbGciOiJFUzI1NiJ9.abc.def", "shc:/5676290952432060346029243740", "{\"verifiableCredential\":[\"a.b.c\"]}",
                     "{\"resourceType\":\"Parameters\",\"parameter\":[{\"name\":\"verifiableCredential\",\"valueString\":\"a.b.c\"}]}"] {
            guard case .cards(let bytes) = try read(text) else { Issue.record("\(text) is not a card"); continue }
            #expect(bytes == Array(text.utf8))
        }
    }

    @Test("What cannot be read is a typed error")
    func errors() {
        #expect(throws: HealthRecordImportError.empty) { try read("  \n") }
        #expect(throws: HealthRecordImportError.notFHIR) { try read("{\"hello\":1}") }
        #expect(throws: HealthRecordImportError.notFHIR) { try read("[1,2]".replacingOccurrences(of: "[", with: "{\"a\":[").appending("}")) }
        do {
            _ = try read("{\"resourceType\": \"Observation\",")
            Issue.record("malformed JSON was read")
        } catch let error as HealthRecordImportError {
            if case .malformedJSON = error {} else { Issue.record("\(error)") }
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("Classification: vital signs by category (R4 array, DSTU2 object), everything else as HealthKit files it")
    func classification() throws {
        func type(_ json: String) throws -> HKClinicalTypeIdentifier? {
            try ClinicalRecordClassifier.clinicalType(of: #require(JSONParser.parse(json).objectValue))
        }
        #expect(try type(R4Fixtures.vitalSign) == .vitalSignRecord)
        #expect(try type(R4Fixtures.labResult) == .labResultRecord)
        #expect(try type("{\"resourceType\":\"Observation\",\"category\":{\"coding\":[{\"code\":\"vital-signs\"}]}}") == .vitalSignRecord)
        #expect(try type("{\"resourceType\":\"Observation\"}") == .labResultRecord)
        let expected: [String: HKClinicalTypeIdentifier?] = [
            "AllergyIntolerance": .allergyRecord, "Condition": .conditionRecord, "Immunization": .immunizationRecord,
            "DiagnosticReport": .labResultRecord, "MedicationStatement": .medicationRecord, "MedicationRequest": .medicationRecord,
            "MedicationOrder": .medicationRecord, "MedicationDispense": .medicationRecord, "Procedure": .procedureRecord,
            "Coverage": .coverageRecord, "DocumentReference": .clinicalNoteRecord, "Patient": nil, "Encounter": nil, "Practitioner": nil,
        ]
        for (resourceType, clinicalType) in expected {
            #expect(try type("{\"resourceType\":\"\(resourceType)\"}") == clinicalType, "\(resourceType)")
        }
    }

    @Test("Dates from each resource's own date element; display names from code text, display or code")
    func descriptions() throws {
        func describe(_ json: String) throws -> ClinicalRecordDescription {
            ClinicalRecordDescription(resource: try #require(JSONParser.parse(json).objectValue))
        }
        let lab = try describe(R4Fixtures.labResult)
        #expect(lab.startDate == (DateTime("2024-03-03T08:00:00Z")).asDate())
        #expect(lab.endDate == (DateTime("2024-03-03T09:00:00Z")).asDate())
        #expect(lab.displayName == "Hemoglobin A1c")
        #expect(try describe(R4Fixtures.vitalSign).displayName == "Heart rate")
        #expect(try describe(R4Fixtures.medicationStatement).displayName == "Metformin 500 mg")
        #expect(try describe(R4Fixtures.allergy).startDate == (DateTime("2019-05-01")).asDate())
        let onlyCode = try describe("{\"resourceType\":\"Condition\",\"code\":{\"coding\":[{\"code\":\"44054006\"}]},\"onsetDateTime\":\"2010\"}")
        #expect(onlyCode.displayName == "44054006")
        #expect(onlyCode.startDate == (DateTime("2010")).asDate())
        let request = try describe("{\"resourceType\":\"MedicationRequest\",\"authoredOn\":\"2020-02-03\",\"medicationReference\":{\"display\":\"Aspirin\"}}")
        #expect(request.displayName == "Aspirin")
        #expect(request.startDate == (DateTime("2020-02-03")).asDate())
        let undated = try describe("{\"resourceType\":\"Procedure\"}")
        #expect(undated.startDate == nil && undated.displayName == "Procedure")
    }

    @Test("Mutated and random inputs never crash the reader (property test)")
    func fuzz() {
        var generator = SplitMix64(seed: 0x5EED_4EC0)
        let seeds = [R4Fixtures.bundle([R4Fixtures.labResult, R4Fixtures.vitalSign]), R4Fixtures.allergy,
                     [R4Fixtures.labResult, R4Fixtures.patient].joined(separator: "\n"), "{\"verifiableCredential\":[\"a.b.c\"]}"]
        let alphabet = Array("{}[]\":,\n \\0123456789abcdefresourceTypeBundleentry_".utf8)
        for round in 0..<3_000 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<(1 + Int(generator.next() % 6)) {
                guard !bytes.isEmpty else { break }
                let index = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 4 {
                case 0: bytes[index] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: index)
                default: bytes = Array(bytes[..<index])
                }
            }
            // Any outcome is fine except a crash; what is read must be in the input.
            if case .resources(let slices, _)? = try? HealthRecordInput.read(bytes, validate: HealthRecordImporter.validateR4) {
                for slice in slices {
                    #expect(bytes.firstRange(of: slice.bytes) != nil)
                }
            }
        }
    }
}

/// A small deterministic generator for property tests.
