import FHIRCore
import Foundation
import HealthRecords
import ModelsDSTU2
import ModelsR4
import OpenHealthKit
import SmartHealthCards
import Testing

// Code from Apple's "Accessing a User's Clinical Records" sample (seed 004) and the WWDC21 session
// "Explore Verifiable Health Records", ported by changing `import HealthKit` to
// `import OpenHealthKit` and FHIRModels' `import ModelsR4`/`import ModelsDSTU2` to ours. Swift 6 changes
// only: `any` before the protocol used as a type (this package builds with ExistentialAny), and results
// leave handlers through continuations instead of `DispatchQueue.main`.

/// The sample's way of showing a resource in a list.
protocol DisplayItemSubtitleConvertible {
    var displayItemSubtitle: String { get }
}

extension ModelsR4.MedicationStatement: DisplayItemSubtitleConvertible {
    var displayItemSubtitle: String {
        return self.status.value?.rawValue ?? "unknown"
    }
}

extension ModelsR4.Observation: DisplayItemSubtitleConvertible {
    var displayItemSubtitle: String {
        return self.code.text?.value?.string ?? self.code.coding?.first?.display?.value?.string ?? "Observation"
    }
}

extension ModelsR4.AllergyIntolerance: DisplayItemSubtitleConvertible {
    var displayItemSubtitle: String {
        return self.code?.coding?.first?.display?.value?.string ?? "Allergy"
    }
}

// The sample's DSTU2 side: HealthKit still hands out DSTU2 (Argonaut) records.
extension ModelsDSTU2.MedicationStatement: DisplayItemSubtitleConvertible {
    var displayItemSubtitle: String {
        return self.status.value?.rawValue ?? "unknown"
    }
}

extension ModelsDSTU2.Observation: DisplayItemSubtitleConvertible {
    var displayItemSubtitle: String {
        return self.code.text?.value?.string ?? self.code.coding?.first?.display?.value?.string ?? "Observation"
    }
}

extension ModelsDSTU2.AllergyIntolerance: DisplayItemSubtitleConvertible {
    var displayItemSubtitle: String {
        return self.substance.coding?.first?.display?.value?.string ?? "Allergy"
    }
}

enum FHIRResourceDecodingError: Error {
    case versionNotSupported(HKFHIRVersion)
    case resourceTypeNotSupported(HKFHIRResourceType)
}

/// The sample's sections: health records and fitness data.
enum Section {
    case healthRecords
    case fitnessData

    var types: [HKSampleType] {
        switch self {
        case .healthRecords:
            return [
                HKObjectType.clinicalType(forIdentifier: .allergyRecord)!,
                HKObjectType.clinicalType(forIdentifier: .vitalSignRecord)!,
                HKObjectType.clinicalType(forIdentifier: .conditionRecord)!,
                HKObjectType.clinicalType(forIdentifier: .immunizationRecord)!,
                HKObjectType.clinicalType(forIdentifier: .labResultRecord)!,
                HKObjectType.clinicalType(forIdentifier: .medicationRecord)!,
                HKObjectType.clinicalType(forIdentifier: .procedureRecord)!,
            ]
        case .fitnessData:
            return [
                HKObjectType.quantityType(forIdentifier: .stepCount)!,
                HKObjectType.quantityType(forIdentifier: .distanceWalkingRunning)!,
            ]
        }
    }
}

@Suite("Apple's clinical-records sample and the WWDC21 verifiable-records code, ported by changing the import")
struct PortedClinicalRecordsCodeTests {
    /// Each clinical record retrieved from HealthKit is associated with a FHIR Resource.
    /// (Seed 004's `decode(resource:)`, both branches, as written there but for `any`.)
    func decode(resource: HKFHIRResource) throws -> any DisplayItemSubtitleConvertible {
        if #available(iOS 14.0, *) {
            switch resource.fhirVersion.fhirRelease {
            case .dstu2:
                return try decodeDSTU2(resource: resource)
            case .r4:
                return try decodeR4(resource: resource)
            default:
                throw FHIRResourceDecodingError.versionNotSupported(resource.fhirVersion)
            }
        } else {
            return try decodeDSTU2(resource: resource) // On iOS 12 and 13, HealthKit always returns DSTU2 resources.
        }
    }

    func decodeDSTU2(resource: HKFHIRResource) throws -> any DisplayItemSubtitleConvertible {
        let decoder = JSONDecoder()
        switch resource.resourceType {
        case .allergyIntolerance:
            return try decoder.decode(ModelsDSTU2.AllergyIntolerance.self, from: resource.data)
        case .medicationStatement:
            return try decoder.decode(ModelsDSTU2.MedicationStatement.self, from: resource.data)
        case .observation:
            return try decoder.decode(ModelsDSTU2.Observation.self, from: resource.data)
        default:
            throw FHIRResourceDecodingError.resourceTypeNotSupported(resource.resourceType)
        }
    }

    func decodeR4(resource: HKFHIRResource) throws -> any DisplayItemSubtitleConvertible {
        let decoder = JSONDecoder()
        switch resource.resourceType {
        case .allergyIntolerance:
            return try decoder.decode(ModelsR4.AllergyIntolerance.self, from: resource.data)
        case .medicationStatement:
            return try decoder.decode(ModelsR4.MedicationStatement.self, from: resource.data)
        case .observation:
            return try decoder.decode(ModelsR4.Observation.self, from: resource.data)
        default:
            throw FHIRResourceDecodingError.resourceTypeNotSupported(resource.resourceType)
        }
    }

    @Test("Request authorization, query each clinical type sorted by start date, decode fhirResource.data with ModelsR4")
    func accessingClinicalRecords() async throws {
        let test = TestStore()
        var report = HealthRecordImportReport()
        let importer = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier,
                                            options: .init(sourceName: "Good Health Clinic", sourceURL: URL(string: "https://fhir.goodhealth.example/r4")))
        let bundle = R4Fixtures.bundle([R4Fixtures.patient, R4Fixtures.medicationStatement, R4Fixtures.vitalSign, R4Fixtures.labResult, R4Fixtures.allergy])
        try await importer.importInput(Array(bundle.utf8), named: "bundle.json", into: &report)
        #expect(report.stored.count == 4 && report.refusals.isEmpty)

        let healthStore = test.app("com.example.healthrecords")
        var sampleTypes: Set<HKSampleType> {
            return Set(Section.healthRecords.types + Section.fitnessData.types)
        }

        // requestAuthorizationIfNeeded
        let status: HKAuthorizationRequestStatus = await withCheckedContinuation { continuation in
            healthStore.getRequestStatusForAuthorization(toShare: Set(), read: sampleTypes) { status, _ in
                continuation.resume(returning: status)
            }
        }
        #expect(status == .shouldRequest)
        // requestAuthorization
        let success: Bool = await withCheckedContinuation { continuation in
            healthStore.requestAuthorization(toShare: nil, read: sampleTypes) { success, _ in
                continuation.resume(returning: success)
            }
        }
        #expect(success)

        var subtitles: [String: [String]] = [:]
        for sampleType in Section.healthRecords.types {
            // queryForSamples
            let samples: [HKSample] = try await withCheckedThrowingContinuation { continuation in
                let sortDescriptors = [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]
                let query = HKSampleQuery(sampleType: sampleType, predicate: nil, limit: 100, sortDescriptors: sortDescriptors) { _, samplesOrNil, error in
                    guard let samples = samplesOrNil else {
                        continuation.resume(throwing: error ?? HKError(.errorNoData))
                        return
                    }
                    continuation.resume(returning: samples)
                }
                healthStore.execute(query)
            }
            for sample in samples {
                guard let record = sample as? HKClinicalRecord, let resource = record.fhirResource else { continue }
                subtitles[sampleType.identifier, default: []].append(try decode(resource: resource).displayItemSubtitle)
                #expect(resource.sourceURL?.absoluteString == "https://fhir.goodhealth.example/r4/\(resource.resourceType.rawValue)/\(resource.identifier)")
            }
        }
        #expect(subtitles[HKClinicalTypeIdentifier.medicationRecord.rawValue] == ["active"])
        #expect(subtitles[HKClinicalTypeIdentifier.vitalSignRecord.rawValue] == ["Heart rate"])
        #expect(subtitles[HKClinicalTypeIdentifier.labResultRecord.rawValue] == ["Hemoglobin A1c"])
        #expect(subtitles[HKClinicalTypeIdentifier.allergyRecord.rawValue] == ["Allergy to penicillin"])
    }

    @Test("Seed 004's decode(resource:), both branches: DSTU2 and R4 records of one store decode with ModelsDSTU2 and ModelsR4")
    func decodeBothReleases() async throws {
        let test = TestStore()
        var report = HealthRecordImportReport()
        let r4 = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier,
                                      options: .init(sourceName: "Good Health Clinic", sourceURL: URL(string: "https://fhir.goodhealth.example/r4")))
        try await r4.importInput(Array(R4Fixtures.bundle([R4Fixtures.medicationStatement, R4Fixtures.vitalSign, R4Fixtures.allergy]).utf8),
                                 named: "r4.json", into: &report)
        let dstu2 = HealthRecordImporter(store: test.owner, verifier: try TestIssuer().verifier,
                                         options: .init(fhirVersion: .primaryDSTU2(), sourceName: "Argonaut Clinic",
                                                        sourceURL: URL(string: "https://fhir.argonaut.example/dstu2")))
        try await dstu2.importInput(Array(DSTU2Fixtures.bundle([DSTU2Fixtures.medicationStatement, DSTU2Fixtures.vitalSign, DSTU2Fixtures.allergy]).utf8),
                                    named: "dstu2.json", into: &report)
        #expect(report.stored.count == 6 && report.refusals.isEmpty, "\(report.refusals)")

        let healthStore = test.app("com.example.healthrecords")
        let success: Bool = await withCheckedContinuation { continuation in
            healthStore.requestAuthorization(toShare: nil, read: Set(Section.healthRecords.types)) { success, _ in
                continuation.resume(returning: success)
            }
        }
        #expect(success)
        var subtitles: [String: Set<String>] = [:]
        var releases: [HKFHIRRelease: Int] = [:]
        for sampleType in Section.healthRecords.types {
            let samples: [HKSample] = try await withCheckedThrowingContinuation { continuation in
                let sortDescriptors = [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]
                let query = HKSampleQuery(sampleType: sampleType, predicate: nil, limit: 100, sortDescriptors: sortDescriptors) { _, samplesOrNil, error in
                    guard let samples = samplesOrNil else {
                        continuation.resume(throwing: error ?? HKError(.errorNoData))
                        return
                    }
                    continuation.resume(returning: samples)
                }
                healthStore.execute(query)
            }
            for sample in samples {
                guard let record = sample as? HKClinicalRecord, let resource = record.fhirResource else { continue }
                releases[resource.fhirVersion.fhirRelease, default: 0] += 1
                subtitles[sampleType.identifier, default: []].insert(try decode(resource: resource).displayItemSubtitle)
            }
        }
        #expect(releases == [.r4: 3, .dstu2: 3])
        #expect(subtitles[HKClinicalTypeIdentifier.medicationRecord.rawValue] == ["active", "completed"])
        #expect(subtitles[HKClinicalTypeIdentifier.vitalSignRecord.rawValue] == ["Heart rate", "Respiratory rate"])
        #expect(subtitles[HKClinicalTypeIdentifier.allergyRecord.rawValue] == ["Allergy to penicillin", "Cashew nuts"])
    }

    @Test("Query verifiable records by type and relevant date, then verify the JWS as the session shows")
    func verifiableHealthRecords() async throws {
        let test = TestStore()
        let issuer = TestIssuer()
        var report = HealthRecordImportReport()
        let importer = HealthRecordImporter(store: test.owner, verifier: try issuer.verifier)
        let recent = Date().addingTimeInterval(-3 * 86_400)
        let labBundle = """
            {"resourceType":"Bundle","type":"collection","entry":[{"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"text":"Jane \
            Anyperson"}],"birthDate":"1961"}},\
            {"fullUrl":"resource:1","resource":{"resourceType":"Observation","status":"final",\
            "code":{"coding":[{"system":"http://loinc.org","code":"94558-4"}]},\
            "subject":{"reference":"resource:0"},"effectiveDateTime":"\(DateTime(recent).description)",\
            "valueCodeableConcept":{"coding":[{"system":"http://snomed.info/sct","code":"260385009"}]}}}]}
            """
        for card in [try issuer.card(TestIssuer.vaccinationBundle), try issuer.card(labBundle)] {
            try await importer.importInput(Array(card.utf8), named: "card", into: &report)
        }
        #expect(report.stored.count == 2, "\(report.refusals)")

        let healthStore = test.app("com.example.labs")
        let recordTypes = ["https://smarthealth.cards#laboratory"]
        let predicate = HKQuery.predicateForVerifiableClinicalRecords(withRelevantDateWithin: DateInterval(start: Date().addingTimeInterval(-7 * 86_400),
            end: Date()))
        let records: [HKVerifiableClinicalRecord] = try await withCheckedThrowingContinuation { continuation in
            let query = HKVerifiableClinicalRecordQuery(recordTypes: recordTypes, predicate: predicate) { _, samples, error in
                guard let samples = samples else {
                    continuation.resume(throwing: error ?? HKError(.errorNoData))
                    return
                }
                continuation.resume(returning: samples)
            }
            healthStore.execute(query)
        }
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record.subject.fullName == "Jane Anyperson")
        #expect(record.subject.dateOfBirthComponents == DateComponents(year: 1961))
        #expect(record.recordTypes.contains("https://smarthealth.cards#laboratory"))
        // The session's four steps: take the JWS, inflate its payload, fetch the issuer's key, verify.
        let jws = try #require(String(data: record.jwsRepresentation, encoding: .utf8))
        let verification = await (try issuer.verifier).verify(jws)
        #expect(verification.isValid && verification.signatureValid)
        #expect(verification.claims?.iss == record.issuerIdentifier)

        // The immunization card with the async descriptor, over all time.
        let immunizations = try await HKVerifiableClinicalRecordQueryDescriptor(
            recordTypes: [.immunization], sourceTypes: [.smartHealthCard]).result(for: healthStore)
        #expect(immunizations.map(\.itemNames) == [["Moderna COVID-19 vaccine", "Moderna COVID-19 vaccine"]])
        #expect(immunizations.first?.relevantDate == (DateTime("2021-01-29")).asDate())
    }
}
