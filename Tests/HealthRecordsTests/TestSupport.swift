import Foundation
import HealthRecords
import OpenHealthKit
import SmartHealthCards

/// An owner store in a temporary folder, removed when released.
final class TestStore: Sendable {
    let folder: URL
    let owner: HKHealthStore

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("health-records-\(UUID().uuidString)")
        owner = TestStore.store(in: folder, role: .owner, bundle: "org.example.owner")
    }

    /// Another handle on the same store: an app deciding with `provider`, or the owner.
    func app(_ bundle: String, provider: any AuthorizationProvider = OwnerConsentAuthorizationProvider()) -> HKHealthStore {
        TestStore.store(in: folder, role: .app, bundle: bundle, provider: provider)
    }

    private static func store(in folder: URL, role: HKHealthStore.Configuration.Role, bundle: String,
                              provider: any AuthorizationProvider = OwnerConsentAuthorizationProvider()) -> HKHealthStore {
        HKHealthStore(configuration: .init(location: .file(folder.appendingPathComponent("health.sqlite")),
                                           key: .keyFile(folder.appendingPathComponent("health.key")),
                                           source: HKSource(name: bundle, bundleIdentifier: bundle), role: role,
                                           authorizationProvider: provider))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}

/// A card issuer made in the test, and a verifier that knows only it.
struct TestIssuer {
    static let iss = "https://issuer.example.org"
    let key = SHCIssuerKey.generate()

    var verifier: SHCVerifier {
        get throws {
            SHCVerifier(resolver: StaticKeyResolver([Self.iss: try SHCJWKSet(jsonBytes: key.publicJWKS)]), now: Date())
        }
    }

    func card(_ bundle: String, nbf: Date = Date(timeIntervalSince1970: 1_700_000_000)) throws -> String {
        try SHCIssuer(key: key, issuer: Self.iss).issue(bundle: Array(bundle.utf8), nbf: nbf)
    }

    /// A COVID-19 vaccination card's bundle: a patient and two doses.
    static let vaccinationBundle = """
        {"resourceType":"Bundle","type":"collection","entry":[
        {"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"family":"Anyperson","given":["Jane","C."]}],"birthDate":"1961-01-20"}},
        {"fullUrl":"resource:1","resource":{"resourceType":"Immunization","status":"completed",\
        "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]},\
        "patient":{"reference":"resource:0"},"occurrenceDateTime":"2021-01-01","lotNumber":"0000001"}},
        {"fullUrl":"resource:2","resource":{"resourceType":"Immunization","status":"completed",\
        "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]},\
        "patient":{"reference":"resource:0"},"occurrenceDateTime":"2021-01-29","lotNumber":"0000007"}}
        ]}
        """
}

/// Small R4 resources as a provider would send them (with the member order, decimals and
/// extensions a re-encoder could lose).
enum R4Fixtures {
    static let medicationStatement = """
        {"resourceType":"MedicationStatement","id":"ms1","status":"active","medicationCodeableConcept":{"text":"Metformin 500 mg"},\
        "subject":{"reference":"Patient/p1"},"effectiveDateTime":"2024-03-01"}
        """
    static let vitalSign = """
        {"resourceType":"Observation","id":"bp1","status":"final",\
        "category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],\
        "code":{"coding":[{"system":"http://loinc.org","code":"8867-4","display":"Heart rate"}]},"subject":{"reference":"Patient/p1"},\
        "effectiveDateTime":"2024-03-02T08:30:00Z","valueQuantity":{"value":72.00,"unit":"beats/minute","system":"http://unitsofmeasure.org","code":"/min"}}
        """
    static let labResult = """
        {"resourceType":"Observation","id":"a1c","status":"final",\
        "category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],\
        "code":{"text":"Hemoglobin A1c","coding":[{"system":"http://loinc.org","code":"4548-4"}]},"subject":{"reference":"Patient/p1"},\
        "effectivePeriod":{"start":"2024-03-03T08:00:00Z","end":"2024-03-03T09:00:00Z"},"valueQuantity":{"value":6.30,"unit":"%"},\
        "_status":{"extension":[{"url":"http://example.org/fhir/StructureDefinition/verified","valueBoolean":true}]}}
        """
    static let allergy = """
        {"resourceType":"AllergyIntolerance","id":"al1",\
        "clinicalStatus":{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical","code":"active"}]},\
        "code":{"coding":[{"system":"http://snomed.info/sct","code":"91936005","display":"Allergy to \
        penicillin"}]},"patient":{"reference":"Patient/p1"},"recordedDate":"2019-05-01"}
        """
    static let patient = """
        {"resourceType":"Patient","id":"p1","name":[{"family":"Anyperson","given":["Jane"]}]}
        """

    static func bundle(_ resources: [String]) -> String {
        "{\"resourceType\":\"Bundle\",\"type\":\"collection\",\"entry\":["
            + resources.map { "{\"fullUrl\":\"urn:uuid:\(UUID().uuidString.lowercased())\",\"resource\":\($0)}" }
            .joined(separator: ",") + "]}"
    }
}

/// DSTU2 (Argonaut) resources as HealthKit hands them out: `patient` rather than `subject`, one
/// `category`, `substance` on allergies.
enum DSTU2Fixtures {
    static let medicationStatement = """
        {"resourceType":"MedicationStatement","id":"ms2","status":"completed","patient":{"reference":"Patient/p2"},\
        "medicationCodeableConcept":{"text":"Amoxicillin 250 mg"},"effectivePeriod":{"start":"2015-01-15","end":"2015-01-25"}}
        """
    static let vitalSign = """
        {"resourceType":"Observation","id":"rr2","status":"final",\
        "category":{"coding":[{"system":"http://hl7.org/fhir/observation-category","code":"vital-signs"}]},\
        "code":{"coding":[{"system":"http://loinc.org","code":"9279-1","display":"Respiratory rate"}]},"subject":{"reference":"Patient/p2"},\
        "effectiveDateTime":"2015-02-07T13:28:17-05:00","valueQuantity":{"value":26,"unit":"breaths/minute","system":"http://unitsofmeasure.org","code":"/min"}}
        """
    static let allergy = """
        {"resourceType":"AllergyIntolerance","id":"al2","patient":{"reference":"Patient/p2"},"status":"confirmed","recordedDate":"2014-10-09T14:58:00+11:00",\
        "substance":{"coding":[{"system":"http://snomed.info/sct","code":"227493005","display":"Cashew nuts"}]}}
        """

    static func bundle(_ resources: [String]) -> String {
        "{\"resourceType\":\"Bundle\",\"type\":\"collection\",\"entry\":["
            + resources.map { "{\"fullUrl\":\"urn:uuid:\(UUID().uuidString.lowercased())\",\"resource\":\($0)}" }
            .joined(separator: ",") + "]}"
    }
}
