import Foundation
@testable import OpenHealthKit
import Testing
import TestSupport

@Suite("Clinical records in the store: types, authorization, queries, replacement")
struct ClinicalRecordStoreTests {
    let labType = HKClinicalType(.labResultRecord)
    let day = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("All nine clinical type identifiers, with HealthKit's raw values, and the twelve resource types")
    func identifiers() throws {
        #expect(HKClinicalTypeIdentifier.allKnown.count == 9)
        #expect(HKClinicalTypeIdentifier.allergyRecord.rawValue == "HKClinicalTypeIdentifierAllergyRecord")
        #expect(HKClinicalTypeIdentifier.clinicalNoteRecord.rawValue == "HKClinicalTypeIdentifierClinicalNoteRecord")
        for identifier in HKClinicalTypeIdentifier.allKnown {
            let type = try #require(HKObjectType.clinicalType(forIdentifier: identifier))
            #expect(type == HKClinicalType(identifier))
            #expect(type.identifier == identifier.rawValue)
        }
        #expect(HKObjectType.clinicalType(forIdentifier: HKClinicalTypeIdentifier(rawValue: "HKClinicalTypeIdentifierNope")) == nil)
        #expect(HKFHIRResourceType.allKnown.count == 12)
        #expect(HKFHIRResourceType.medicationOrder.rawValue == "MedicationOrder")
    }

    @Test("HKFHIRVersion parses major.minor.patch and names its release")
    func fhirVersion() throws {
        #expect(try HKFHIRVersion(fromVersionString: "4.0.1").fhirRelease == .r4)
        #expect(try HKFHIRVersion(fromVersionString: "1.0.2").fhirRelease == .dstu2)
        #expect(try HKFHIRVersion(fromVersionString: "3.0.2").fhirRelease == .unknown)
        #expect(HKFHIRVersion.primaryR4().stringRepresentation == "4.0.1")
        #expect(HKFHIRVersion.primaryDSTU2().stringRepresentation == "1.0.2")
        #expect(HKFHIRVersion.primaryDSTU2() == (try HKFHIRVersion(fromVersionString: "1.0.2")))
        for bad in ["4.0", "4.0.1.2", "", "a.b.c", "4..1", "-1.0.0", "4.0.1 "] {
            #expect(throws: HKError.self) { try HKFHIRVersion(fromVersionString: bad) }
        }
    }

    @Test("The owner saves records; an app that may read sees them with the resource bytes as received")
    func saveAndRead() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let record = HealthRecordFixtures.labResult(id: "a1c", at: day)
        try await owner.saveHealthRecords([record], source: HealthRecordFixtures.provider)

        let app = TestStores.app(folder, bundle: "com.example.records")
        try await app.requestAuthorization(toShare: [], read: [labType])
        let read = try await app.runSampleQuery(labType, sort: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)])
        let stored = try #require(read.first as? HKClinicalRecord)
        #expect(read.count == 1)
        #expect(stored.uuid == record.uuid)
        #expect(stored.clinicalType == labType)
        #expect(stored.displayName == "Hemoglobin A1c")
        #expect(stored.startDate == day)
        #expect(stored.sourceRevision.source.name == "Good Health Clinic")
        let resource = try #require(stored.fhirResource)
        #expect(resource.data == HealthRecordFixtures.observationJSON(id: "a1c"))
        #expect(resource.identifier == "a1c")
        #expect(resource.resourceType == .observation)
        #expect(resource.fhirVersion.fhirRelease == .r4)
        #expect(resource.sourceURL?.absoluteString == "https://fhir.example.org/r4/Observation/a1c")

        // The async descriptor form.
        let viaDescriptor = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: labType)],
                                                              sortDescriptors: [SortDescriptor(\.startDate)]).result(for: app)
        #expect(viaDescriptor.map(\.uuid) == [record.uuid])
    }

    @Test("Resource JSON and display names are sealed: none of it is in the database file in the clear")
    func sealed() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        try await owner.saveHealthRecords([HealthRecordFixtures.labResult(id: "secret-id-7781", at: day, value: "9.87654")],
                                          source: HealthRecordFixtures.provider)
        var text = Data()
        for suffix in ["", "-wal"] {
            text.append((try? Data(contentsOf: URL(fileURLWithPath: folder.database.path + suffix))) ?? Data())
        }
        for secret in ["Hemoglobin", "secret-id-7781", "9.87654", "valueQuantity"] {
            #expect(text.range(of: Data(secret.utf8)) == nil, "\(secret) is stored in the clear")
        }
    }

    @Test("Apps may read clinical types and never share them; apps cannot save records")
    func readOnly() async throws {
        let folder = TemporaryFolder()
        let app = TestStores.app(folder, bundle: "com.example.writer")
        await #expect(throws: HKError.self) { try await app.requestAuthorization(toShare: [labType], read: []) }
        let status = try await app.statusForAuthorizationRequest(toShare: [], read: [labType])
        #expect(status == .shouldRequest)
        try await app.requestAuthorization(toShare: [], read: [labType])
        #expect(try await app.statusForAuthorizationRequest(toShare: [], read: [labType]) == .unnecessary)
        do {
            try await app.save(HealthRecordFixtures.labResult(id: "x", at: day))
            Issue.record("an app saved a clinical record")
        } catch let error as HKError {
            #expect(error.code == .errorAuthorizationDenied)
        }
        await #expect(throws: HKError.self) {
            try await app.saveHealthRecords([HealthRecordFixtures.labResult(id: "x", at: day)], source: HealthRecordFixtures.provider)
        }
    }

    @Test("A read that is not authorized looks exactly like no data, in every query kind")
    func privacy() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        try await owner.saveHealthRecords([HealthRecordFixtures.labResult(id: "a", at: day)], source: HealthRecordFixtures.provider)
        let denying = PolicyFileAuthorizationProvider(policy: .init(apps: [:]))
        for app in [TestStores.app(folder, bundle: "com.example.never-asked"),
                    TestStores.app(folder, bundle: "com.example.denied", provider: denying)] {
            if app.configuration.source.bundleIdentifier == "com.example.denied" {
                try await app.requestAuthorization(toShare: [], read: [labType])
            }
            #expect(try await app.runSampleQuery(labType).isEmpty)
            let anchored = try await app.runAnchoredQuery(labType, anchor: nil)
            #expect(anchored.added.isEmpty && anchored.deleted.isEmpty)
            #expect(try await app.runSourceQuery(labType).isEmpty)
        }
        // Asking for another clinical type does not open this one.
        let other = TestStores.app(folder, bundle: "com.example.allergies")
        try await other.requestAuthorization(toShare: [], read: [HKClinicalType(.allergyRecord)])
        #expect(try await other.runSampleQuery(labType).isEmpty)
    }

    @Test("Importing the same source, type and id again replaces the record and leaves a deleted object")
    func replacement() async throws {
        let store = TestStores.memory()
        let first = HealthRecordFixtures.labResult(id: "a1c", at: day, value: "6.30")
        try await store.saveHealthRecords([first, HealthRecordFixtures.labResult(id: "other", at: day)], source: HealthRecordFixtures.provider)
        let start = try await store.runAnchoredQuery(labType, anchor: nil)
        #expect(start.added.count == 2)

        let second = HealthRecordFixtures.labResult(id: "a1c", at: day.addingTimeInterval(60), value: "6.40")
        try await store.saveHealthRecords([second], source: HealthRecordFixtures.provider)
        let changes = try await store.runAnchoredQuery(labType, anchor: start.anchor)
        #expect(changes.added.map(\.uuid) == [second.uuid])
        #expect(changes.deleted.map(\.uuid) == [first.uuid])
        let all = try await store.runSampleQuery(labType)
        #expect(all.count == 2)
        let datas = all.compactMap { ($0 as? HKClinicalRecord)?.fhirResource?.data }
        #expect(datas.contains(HealthRecordFixtures.observationJSON(id: "a1c", value: "6.40")))

        // The same id from another provider is another record; a vital sign with the same id replaces across types.
        let elsewhere = HKSource(name: "Other Hospital", bundleIdentifier: "org.openhealthkit.records.other-hospital")
        try await store.saveHealthRecords([HealthRecordFixtures.labResult(id: "a1c", at: day)], source: elsewhere)
        #expect(try await store.runSampleQuery(labType).count == 3)
        try await store.saveHealthRecords([HealthRecordFixtures.labResult(id: "a1c", at: day, type: .vitalSignRecord)], source: elsewhere)
        #expect(try await store.runSampleQuery(labType).count == 2)
        #expect(try await store.runSampleQuery(HKClinicalType(.vitalSignRecord)).count == 1)
    }

    @Test("predicateForClinicalRecords by resource type, and by source, type and id")
    func predicates() async throws {
        let store = TestStores.memory()
        let observation = HealthRecordFixtures.labResult(id: "o1", at: day)
        let report = HealthRecordFixtures.labResult(id: "r1", at: day, resourceType: .diagnosticReport)
        try await store.saveHealthRecords([observation, report], source: HealthRecordFixtures.provider)
        let reports = try await store.runSampleQuery(labType, predicate: HKQuery.predicateForClinicalRecords(withFHIRResourceType: .diagnosticReport))
        #expect(reports.map(\.uuid) == [report.uuid])
        let exact = HKQuery.predicateForClinicalRecords(from: HealthRecordFixtures.provider, fhirResourceType: .observation, identifier: "o1")
        #expect(try await store.runSampleQuery(labType, predicate: exact).map(\.uuid) == [observation.uuid])
        let wrongSource = HKQuery.predicateForClinicalRecords(from: HKSource(name: "x", bundleIdentifier: "x"), fhirResourceType: .observation,
                                                              identifier: "o1")
        #expect(try await store.runSampleQuery(labType, predicate: wrongSource).isEmpty)
        let combined = NSCompoundPredicate(andPredicateWithSubpredicates: [
            HKQuery.predicateForClinicalRecords(withFHIRResourceType: .observation),
            HKQuery.predicateForSamples(withStart: day.addingTimeInterval(-1), end: day.addingTimeInterval(1)),
        ])
        #expect(try await store.runSampleQuery(labType, predicate: combined).map(\.uuid) == [observation.uuid])
        #expect(try await store.runSourceQuery(labType) == [HealthRecordFixtures.provider])
    }

    @Test("An observer query on a clinical type fires when records arrive")
    func observer() async throws {
        let store = TestStores.memory()
        let inbox = Inbox<Int>()
        let query = HKObserverQuery(sampleType: labType, predicate: nil) { _, completion, _ in
            inbox.append(1)
            completion()
        }
        store.execute(query)
        let initial = await inbox.wait(for: 1).count
        try await store.saveHealthRecords([HealthRecordFixtures.labResult(id: "new", at: day)], source: HealthRecordFixtures.provider)
        #expect(await inbox.wait(for: initial + 1).count == initial + 1)
        store.stop(query)
    }
}
