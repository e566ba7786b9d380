import Foundation
import OpenHealthKit

/// Clinical and verifiable records built in code, for the store tests (the FHIR import itself is
/// tested in HealthRecordsTests).
enum HealthRecordFixtures {
    static let provider = HKSource(name: "Good Health Clinic", bundleIdentifier: "org.openhealthkit.records.good-health-clinic")
    static let issuer = "https://issuer.example.org"

    /// A resource's JSON as a provider sends it: member order, decimals and an extension kept.
    static func observationJSON(id: String, value: String = "6.30") -> Data {
        Data("""
            {"resourceType":"Observation","id":"\(id)","status":"final","code":{"text":"Hemoglobin A1c"},\
            "valueQuantity":{"value":\(value),"unit":"%"},"_status":{"extension":[{"url":"http://example.org/x","valueString":"y"}]}}
            """.utf8)
    }

    static func labResult(id: String, at date: Date, value: String = "6.30", type: HKClinicalTypeIdentifier = .labResultRecord,
                          resourceType: HKFHIRResourceType = .observation) -> HKClinicalRecord {
        HKClinicalRecord(type: HKClinicalType(type), startDate: date, endDate: date, displayName: "Hemoglobin A1c",
                         fhirResource: HKFHIRResource(resourceType: resourceType, identifier: id, data: observationJSON(id: id, value: value),
                                                      sourceURL: URL(string: "https://fhir.example.org/r4/\(resourceType.rawValue)/\(id)"),
                                                      fhirVersion: .primaryR4()))
    }

    static func card(_ jws: String, types: [String], issuer: String = issuer, relevant: Date, items: [String] = ["COVID-19, mRNA"])
        -> HKVerifiableClinicalRecord {
        HKVerifiableClinicalRecord(recordTypes: types, issuerIdentifier: issuer,
                                   subject: HKVerifiableClinicalRecordSubject(fullName: "John B. Anyperson",
                                                                              dateOfBirthComponents: DateComponents(year: 1951, month: 1, day: 20)),
                                   issuedDate: relevant.addingTimeInterval(86_400), relevantDate: relevant, expirationDate: nil,
                                   itemNames: items, sourceType: .smartHealthCard, dataRepresentation: Data(jws.utf8))
    }

    static let immunization = HKVerifiableClinicalRecordCredentialType.immunization.rawValue
    static let laboratory = HKVerifiableClinicalRecordCredentialType.laboratory.rawValue
    static let healthCard = "https://smarthealth.cards#health-card"
}
