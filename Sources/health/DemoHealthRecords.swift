import Foundation
import HealthRecords
import OpenHealthKit
import SmartHealthCards

/// The health-records part of `health demo`: a provider's records (a Synthea patient) and a
/// health card come into the store; an app reads lab results; another asks for a card, once.
enum DemoHealthRecords {
    /// A vaccination card's bundle, issued by a demo issuer made on the spot.
    static let vaccinationBundle = """
        {"resourceType":"Bundle","type":"collection","entry":[
        {"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"family":"Castellanos","given":["Antonio"]}],"birthDate":"1962-09-28"}},
        {"fullUrl":"resource:1","resource":{"resourceType":"Immunization","status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"208"}]},"patient":{"reference":"resource:0"},"occurrenceDateTime":"2021-04-02","lotNumber":"EW0182"}},
        {"fullUrl":"resource:2","resource":{"resourceType":"Immunization","status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"208"}]},"patient":{"reference":"resource:0"},"occurrenceDateTime":"2021-04-23","lotNumber":"EW0199"}}
        ]}
        """

    static func run(database: URL, key: StoreKey) async throws {
        let owner = HKHealthStore(configuration: .init(location: .file(database), key: key,
                                                       source: HKSource(name: "health CLI", bundleIdentifier: "org.openhealthkit.health-cli"),
                                                       role: .owner))
        guard let url = Bundle.module.url(forResource: "synthea-patient", withExtension: "json", subdirectory: "Resources") else {
            print("\nHealth records: the demo patient file is missing beside the binary; skipped.")
            return
        }
        let issuerKey = SHCIssuerKey.generate()
        let iss = "https://demo-issuer.openhealthkit.example"
        let resolver = StaticKeyResolver([iss: try SHCJWKSet(jsonBytes: issuerKey.publicJWKS)])
        let importer = HealthRecordImporter(store: owner, verifier: SHCVerifier(resolver: resolver, now: Date()),
                                            options: .init(sourceName: "Synthea General Hospital",
                                                           sourceURL: URL(string: "https://fhir.synthea.example/r4")))
        var report = HealthRecordImportReport()
        try await importer.importInput(Array(try Data(contentsOf: url)), named: "synthea-patient.json", into: &report)
        print("\nHealth records from a provider (a Synthea patient): \(report.stored.count) clinical records")
        for (type, count) in report.storedByType.sorted(by: { $0.key < $1.key }) {
            print("  \(RecordsFormatter.typeName(type).padding(toLength: 20, withPad: " ", startingAt: 0)) \(count)")
        }
        let card = try SHCIssuer(key: issuerKey, issuer: iss).issue(bundle: Array(vaccinationBundle.utf8), nbf: Date())
        var cardReport = HealthRecordImportReport()
        try await importer.importInput(Array(card.utf8), named: "card", into: &cardReport)
        if let record = cardReport.stored.first as? HKVerifiableClinicalRecord {
            print("A SMART Health Card, verified and stored: \(record.itemNames.joined(separator: ", ")) for \(record.subject.fullName)")
        }

        // An app that may read lab results, as Apple's sample reads them.
        let app = HKHealthStore(configuration: .init(location: .file(database), key: key,
                                                     source: HKSource(name: "Records App", bundleIdentifier: "com.example.records")))
        let labs = HKClinicalType(.labResultRecord)
        try await app.requestAuthorization(toShare: [], read: [labs])
        let latest = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: labs)],
                                                       sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)], limit: 3).result(for: app)
        print("The records app reads the latest lab results:")
        for record in latest {
            print("  \(formatDate(record.startDate))  \(record.displayName)  (\(record.fhirResource?.resourceType.rawValue ?? "")/\(record.fhirResource?.identifier.prefix(8) ?? "")…)")
        }

        // A venue asks for an immunization card: the owner's consent shares it, once.
        let venue = HKHealthStore(configuration: .init(location: .file(database), key: key,
                                                       source: HKSource(name: "Venue Check-in", bundleIdentifier: "com.example.venue")))
        let shared = try await HKVerifiableClinicalRecordQueryDescriptor(
            recordTypes: [HKVerifiableClinicalRecordCredentialType.immunization.rawValue]).result(for: venue)
        let shares = try await owner.verifiableRecordShares()
        print("A venue asked for immunization cards and was shared \(shared.count) (shares on record: \(shares.count)).")
    }
}
