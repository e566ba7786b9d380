import CommonSupport
import Foundation
import HealthRecords
import OpenHealthKit
import SmartHealthCards

/// The health-records part of `health demo`: a provider's records (a Synthea patient) and a
/// health card come into the store; an app reads lab results; another asks for a card, once.
///
/// The demo issuer's key and its card are kept in the demo folder (`demo-issuer/`, the private
/// key mode 0600) and listed in its `issuer-keys.json`: a kept demo's card verifies later, and
/// running the demo again uses the same key and the same card (the store keeps a card once).
enum DemoHealthRecords {
    /// The demo issuer.
    static let issuer = "https://demo-issuer.openhealthkit.example"
    /// The demo issuer's folder in the demo folder.
    static let issuerFolderName = "demo-issuer"
    /// The card's file in the issuer's folder.
    static let cardFileName = "vaccination.smart-health-card"

    /// A vaccination card's bundle, issued by a demo issuer made on the spot.
    static let vaccinationBundle = """
        {"resourceType":"Bundle","type":"collection","entry":[
        {"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"family":"Castellanos","given":["Antonio"]}],"birthDate":"1991-06-08"}},
        {"fullUrl":"resource:1","resource":{"resourceType":"Immunization","status":"completed",\
        "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"208"}]},"patient":{"reference":"resource:0"},\
        "occurrenceDateTime":"2021-04-02","lotNumber":"EW0182"}},
        {"fullUrl":"resource:2","resource":{"resourceType":"Immunization","status":"completed",\
        "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"208"}]},"patient":{"reference":"resource:0"},\
        "occurrenceDateTime":"2021-04-23","lotNumber":"EW0199"}}
        ]}
        """

    /// Imports the demo's records and card into the store at `database`, the issuer's key and
    /// the card kept in `folder` (made there the first time).
    static func run(database: URL, key: StoreKey, folder: URL) async throws {
        let owner = HKHealthStore(configuration: .init(location: .file(database), key: key,
                                                       source: HKSource(name: "health CLI", bundleIdentifier: "org.openhealthkit.health-cli"),
                                                       role: .owner))
        guard let url = Bundle.module.url(forResource: "synthea-patient", withExtension: "json", subdirectory: "Resources") else {
            print("\nHealth records: the demo patient file is missing beside the binary; skipped.")
            return
        }
        // One person per store: the demo's records and card are the Synthea patient's, who is the
        // store's owner (its profile is set once; a profile already there is kept).
        if try await owner.ownerProfile().isEmpty {
            try await owner.saveOwnerProfile(HKOwnerProfile(givenName: "Antonio", familyName: "Castellanos",
                                                            dateOfBirth: DateComponents(year: 1991, month: 6, day: 8), biologicalSex: .male))
        }
        let (issuerKey, cardFile) = try keptIssuer(in: folder)
        let iss = issuer
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
        let card: [UInt8]
        if let kept = try? Data(contentsOf: cardFile) {
            card = Array(kept)
        } else {
            let jws = try SHCIssuer(key: issuerKey, issuer: iss).issue(bundle: Array(vaccinationBundle.utf8), nbf: Date())
            try SHCFile.write([jws], to: cardFile)
            card = SHCFile.encode([jws])
        }
        var cardReport = HealthRecordImportReport()
        try await importer.importInput(card, named: cardFileName, into: &cardReport)
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
            let resource = "\(record.fhirResource?.resourceType.rawValue ?? "")/\(record.fhirResource?.identifier.prefix(8) ?? "")"
            print("  \(formatDate(record.startDate))  \(record.displayName)  (\(resource)…)")
        }

        // A venue asks for an immunization card: the owner's consent shares it, once.
        let venue = HKHealthStore(configuration: .init(location: .file(database), key: key,
                                                       source: HKSource(name: "Venue Check-in", bundleIdentifier: "com.example.venue")))
        let earlier = try await owner.verifiableRecordShares()
        if earlier.contains(where: { $0.bundleIdentifier == "com.example.venue" }) {
            print("A venue asked for immunization cards in an earlier run (shares on record: \(earlier.count)).")
        } else {
            let shared = try await HKVerifiableClinicalRecordQueryDescriptor(
                recordTypes: [.immunization], sourceTypes: [.smartHealthCard]).result(for: venue)
            let shares = try await owner.verifiableRecordShares()
            print("A venue asked for immunization cards and was shared \(shared.count) (shares on record: \(shares.count)).")
        }
    }

    /// The demo issuer's key and the path of its card, in `folder`/demo-issuer: the kept key, or
    /// a new one written there (the private JWK mode 0600, `.well-known/jwks.json` beside it) and
    /// recorded in `folder`'s `issuer-keys.json`.
    static func keptIssuer(in folder: URL) throws -> (SHCIssuerKey, URL) {
        let issuerFolder = folder.appendingPathComponent(issuerFolderName)
        let privateFile = issuerFolder.appendingPathComponent("issuer.private.jwk")
        let key: SHCIssuerKey
        if SecretFile.exists(privateFile.path) {
            do {
                key = try SHCIssuerKey(privateJWKBytes: try SecretFile.load(privateFile.path, maximumSize: 64 << 10))
            } catch {
                throw InputRefused("the demo issuer's key \(privateFile.path) cannot be read (\(error)): move the folder away to make a new one")
            }
        } else {
            key = SHCIssuerKey.generate()
            try SecretFile.createFolder(issuerFolder.path)
            try key.writePrivateJWK(to: privateFile)
        }
        try SHCWellKnownFolder(root: issuerFolder).publish(keys: [key.publicJWK])
        try KeptIssuers.record(issuer, folder: issuerFolderName, in: folder)
        return (key, issuerFolder.appendingPathComponent(cardFileName))
    }
}
