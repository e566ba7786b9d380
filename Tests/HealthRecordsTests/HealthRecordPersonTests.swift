import FHIRCore
import Foundation
import HealthRecords
import OpenHealthKit
import SmartHealthCards
import Testing

@Suite("One person per store: the Patient and the card subject against the owner's profile")
struct HealthRecordPersonTests {
    private static func person(_ given: [String], _ family: String?, _ birth: String?) -> HealthRecordPerson {
        HealthRecordPerson(givenNames: given, familyName: family, birthDate: birth)
    }

    @Test("Names match leniently (case, diacritics, hyphens, a given-name initial), birth dates exactly")
    func rule() {
        let owner = Self.person(["José", "María"], "Núñez-García", "1980-04-02")
        #expect(owner.matches(Self.person(["jose"], "nunez garcia", "1980-04-02")))
        #expect(owner.matches(Self.person(["J."], "NÚÑEZ-GARCÍA", "1980-04-02")))
        #expect(owner.matches(Self.person(["Jose"], "Nunez-Garcia", nil)))
        #expect(owner.matches(Self.person(["Jose"], "Nunez-Garcia", "1980")))
        #expect(owner.matches(HealthRecordPerson(text: "Jose Maria Nunez Garcia", birthDate: "1980-04-02")))
        #expect(!owner.matches(Self.person(["Jose"], "Nunez-Garcia", "1980-04-03")))
        #expect(!owner.matches(Self.person(["Juan"], "Nunez-Garcia", "1980-04-02")))
        #expect(!owner.matches(Self.person(["Jose"], "Garcia Lopez", "1980-04-02")))
        #expect(!owner.matches(HealthRecordPerson(text: "Antonio Castellanos")))
        #expect(!owner.matches(Self.person(["K"], "Nunez-Garcia", nil)))
    }

    @Test("A family name matches one that contains its words in order; a text name may be \"Family, Given\"; birth dates stay exact")
    func familyNameWords() {
        let gabriel = Self.person(["Gabriel"], "García Márquez", "1927-03-06")
        #expect(gabriel.matches(Self.person(["Gabriel"], "García", "1927-03-06")))
        #expect(Self.person(["gabriel"], "garcia", nil).matches(gabriel))
        #expect(gabriel.matches(Self.person(["Gabriel"], "Márquez", nil)))
        #expect(gabriel.matches(HealthRecordPerson(text: "Gabriel García", birthDate: "1927-03-06")))
        #expect(!gabriel.matches(Self.person(["Gabriel"], "García", "1927-03-07")), "the birth date stays exact")
        #expect(!gabriel.matches(Self.person(["Gabriel"], "Márquez García", "1927-03-06")), "the words in order")
        let anna = Self.person(["Anna"], "Smith-Jones", "1990-01-01")
        #expect(anna.matches(Self.person(["Anna"], "Smith", "1990-01-01")))
        #expect(anna.matches(Self.person(["A."], "Jones", nil)))
        // Another person born the same day, with another family name, is still refused.
        #expect(!anna.matches(Self.person(["Anna"], "Smithson", "1990-01-01")))
        #expect(!anna.matches(Self.person(["Anna"], "Brown", "1990-01-01")))
        let antonio = Self.person(["Antonio"], "Castellanos", "1962-09-28")
        #expect(antonio.matches(HealthRecordPerson(text: "Castellanos, Antonio", birthDate: "1962-09-28")))
        #expect(HealthRecordPerson(text: "CASTELLANOS, Antonio J.").matches(antonio))
        #expect(!antonio.matches(HealthRecordPerson(text: "Castellanos, Miguel", birthDate: "1962-09-28")))
        #expect(!antonio.matches(HealthRecordPerson(text: "Ortega, Antonio", birthDate: "1962-09-28")))
    }

    @Test("A Patient's names: R4 and DSTU2 families, the official name first, text when there are no parts")
    func patientNames() throws {
        let r4 = try #require(JSONParser.parse(#"{"resourceType":"Patient","birthDate":"1961-01-20","name":[{"use":"nickname","given":["Janey"],"family":"A"},"#
                                               + #"{"use":"official","family":"Anyperson","given":["Jane","C."]}]}"#).objectValue)
        let people = HealthRecordPerson.people(inPatient: r4)
        #expect(people.first == Self.person(["Jane", "C."], "Anyperson", "1961-01-20"))
        #expect(people.first?.description == "Jane C. Anyperson (born 1961-01-20)")
        let dstu2 = try #require(JSONParser.parse(#"{"resourceType":"Patient","name":[{"family":["van","Dijk"],"given":["Piet"]}]}"#).objectValue)
        #expect(HealthRecordPerson.people(inPatient: dstu2) == [Self.person(["Piet"], "van Dijk", nil)])
        let text = try #require(JSONParser.parse(#"{"resourceType":"Patient","name":[{"text":"Piet van Dijk"}]}"#).objectValue)
        #expect(HealthRecordPerson.people(inPatient: text).first?.displayName == "Piet van Dijk")
    }

    @Test("An input whose Patient is someone else is refused whole, naming both; with allowOtherPerson it is stored")
    func importerRefusesAnotherPerson() async throws {
        let test = TestStore()
        try await test.owner.saveOwnerProfile(HKOwnerProfile(givenName: "Piet", familyName: "van Dijk",
                                                              dateOfBirth: DateComponents(year: 1970, month: 5, day: 6)))
        let bundle = Array(R4Fixtures.bundle([R4Fixtures.patient, R4Fixtures.labResult]).utf8)
        let verifier = SHCVerifier(resolver: StaticKeyResolver([:]), now: Date())
        var report = HealthRecordImportReport()
        try await HealthRecordImporter(store: test.owner, verifier: verifier).importInput(bundle, named: "other.json", into: &report)
        #expect(report.stored.isEmpty)
        #expect(report.otherPeople.map(\.displayName) == ["Jane Anyperson"])
        let reason = try #require(report.refusals.first?.reasons.first)
        #expect(reason.contains("Jane Anyperson") && reason.contains("Piet van Dijk (born 1970-05-06)"))

        report = HealthRecordImportReport()
        try await HealthRecordImporter(store: test.owner, verifier: verifier, options: .init(allowOtherPerson: true))
            .importInput(bundle, named: "other.json", into: &report)
        #expect(report.stored.count == 1 && report.refusals.isEmpty)

        // The owner's own records go in.
        let own = Array(R4Fixtures.bundle([#"{"resourceType":"Patient","id":"p9","name":[{"family":"Van Dijk","given":["P."]}],"birthDate":"1970-05-06"}"#,
                                           R4Fixtures.allergy]).utf8)
        report = HealthRecordImportReport()
        try await HealthRecordImporter(store: test.owner, verifier: verifier).importInput(own, named: "own.json", into: &report)
        #expect(report.stored.count == 1 && report.refusals.isEmpty)
    }

    @Test("A card whose subject is someone else is refused; the store without a profile takes it and names its subject")
    func cards() async throws {
        let test = TestStore()
        let issuer = TestIssuer()
        let card = Array(try issuer.card(TestIssuer.vaccinationBundle).utf8)
        var report = HealthRecordImportReport()
        try await HealthRecordImporter(store: test.owner, verifier: try issuer.verifier).importInput(card, named: "card", into: &report)
        #expect(report.stored.count == 1)
        #expect(report.people.map(\.description) == ["Jane C. Anyperson (born 1961-01-20)"])

        try await test.owner.saveOwnerProfile(HKOwnerProfile(givenName: "Jane", familyName: "Anyperson",
                                                              dateOfBirth: DateComponents(year: 1961, month: 1, day: 21)))
        report = HealthRecordImportReport()
        try await HealthRecordImporter(store: test.owner, verifier: try issuer.verifier).importInput(card, named: "card", into: &report)
        #expect(report.stored.isEmpty)
        #expect(report.refusals.first?.location == "card 1")
        #expect(report.refusals.first?.reasons.first?.contains("born 1961-01-21") == true)
    }
}
