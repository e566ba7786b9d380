import FHIRCore
import Foundation
import HealthRecords
import OpenHealthKit
import Testing

/// DSTU2 resources are validated with ModelsDSTU2 (the DSTU2 definitions), as R4 ones are with
/// ModelsR4: a valid one is stored byte for byte, an invalid one refused with its problems.
@Suite("Importing DSTU2 resources")
struct DSTU2ImportTests {
    @Test("valid DSTU2 resources are stored as DSTU2; an R4-shaped or wrongly coded one is refused with its paths")
    func validatesWithDSTU2() async throws {
        let test = TestStore()
        var report = HealthRecordImportReport()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier, options: .init(fhirVersion: .primaryDSTU2()))
        // R4's MedicationStatement has `subject`; DSTU2's has `patient`, and no `on-hold` status.
        let r4Shaped = R4Fixtures.medicationStatement.replacingOccurrences(of: "\"id\":\"ms1\"", with: "\"id\":\"ms-r4\"")
        let badCode = DSTU2Fixtures.medicationStatement.replacingOccurrences(of: "\"completed\"", with: "\"on-hold\"")
            .replacingOccurrences(of: "\"id\":\"ms2\"", with: "\"id\":\"ms-bad\"")
        let bundle = DSTU2Fixtures.bundle([DSTU2Fixtures.medicationStatement, r4Shaped, badCode, DSTU2Fixtures.vitalSign, DSTU2Fixtures.allergy])
        try await importer.importInput(Array(bundle.utf8), named: "dstu2.json", into: &report)
        #expect(report.stored.count == 3)
        #expect(report.refusals.map(\.location) == ["entry[1] MedicationStatement/ms-r4", "entry[2] MedicationStatement/ms-bad"], "\(report.refusals)")
        let r4Reasons = report.refusals.first?.reasons ?? []
        #expect(r4Reasons.contains { $0.contains("resource.patient") && $0.contains("required element is missing") }, "\(r4Reasons)")
        #expect(r4Reasons.contains { $0.contains("resource.subject") && $0.contains("unknown element") }, "\(r4Reasons)")
        let codeReasons = report.refusals.last?.reasons ?? []
        #expect(codeReasons.contains { $0.contains("resource.status") && $0.contains("required value set") }, "\(codeReasons)")
        for sample in report.stored {
            let resource = try #require((sample as? HKClinicalRecord)?.fhirResource)
            #expect(resource.fhirVersion.fhirRelease == .dstu2)
        }

        // The same DSTU2 resource is invalid as R4 (DSTU2's `patient` is not an R4 element).
        var r4Report = HealthRecordImportReport()
        let r4Importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier)
        try await r4Importer.importInput(Array(DSTU2Fixtures.medicationStatement.utf8), named: "ms.json", into: &r4Report)
        #expect(r4Report.stored.isEmpty && r4Report.refusals.count == 1)
    }

    @Test("the validator for each release")
    func validatorForRelease() {
        #expect(HealthRecordImporter.validator(for: .primaryR4()) != nil)
        #expect(HealthRecordImporter.validator(for: .primaryDSTU2()) != nil)
        let order = #"{"resourceType":"MedicationOrder","medicationCodeableConcept":{"text":"Amoxicillin"}}"#
        guard let value = try? JSONParser.parse(order) else {
            Issue.record("fixture does not parse")
            return
        }
        #expect(HealthRecordImporter.validateDSTU2(value).isEmpty)
        #expect(HealthRecordImporter.validateR4(value).contains { $0.isError }, "MedicationOrder is not an R4 resource")
    }
}
