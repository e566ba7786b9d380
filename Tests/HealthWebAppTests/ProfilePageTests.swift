import Foundation
import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Profile page")
struct ProfilePageTests {
    static let otherPatientBundle = """
        {"resourceType":"Bundle","type":"collection","entry":[
        {"resource":{"resourceType":"Patient","id":"p7","name":[{"family":"Castellanos","given":["Antonio"]}],"birthDate":"1962-09-28"}},
        {"resource":{"resourceType":"AllergyIntolerance","id":"al7","patient":{"reference":"Patient/p7"},\
        "code":{"coding":[{"system":"http://snomed.info/sct","code":"91936005","display":"Allergy to penicillin"}]},"recordedDate":"2019-05-01"}}
        ]}
        """

    @Test("""
        the profile and Medical ID are edited with the page's form and stored (date of birth, sex and blood type as the characteristics); a form \
        without CSRF or with a wrong value changes nothing
        """)
    func edit() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let empty = try await client.send(.get, "/profile", cookie: cookie)
            #expect(empty.status == .ok)
            #expect(empty.body.contains("<a href=\"/profile\" aria-current=\"page\">Profile</a>"))
            #expect(empty.body.contains("This store does not say whose it is yet."))
            #expect(empty.body.contains("name=\"contactName0\""))

            let form = "givenName=Zelinda&familyName=Quarrington&birthDate=1984-02-29&sex=female&bloodType=6&organDonor=yes"
                + "&conditions=Asthma%0D%0A%0D%0AHay+fever&allergies=Penicillin&medications=&notes=Inhaler+in+the+left+pocket"
                + "&contactName0=Orlando+Quarrington&contactRelationship0=brother&contactPhone0=%2B1+555+0199"
            let withoutToken = try await client.send(.post, "/profile", cookie: cookie, form: form)
            #expect(withoutToken.status == .forbidden)
            let wrongBlood = try await client.send(.post, "/profile", cookie: cookie, form: "csrf=\(client.csrf(cookie))&givenName=X&bloodType=42")
            #expect(wrongBlood.status == .badRequest)
            #expect(wrongBlood.body.contains("nothing was changed"))
            let noPhone = try await client.send(.post, "/profile", cookie: cookie, form: "csrf=\(client.csrf(cookie))&contactName0=Orlando&contactPhone0=")
            #expect(noPhone.status == .badRequest)
            let badDate = try await client.send(.post, "/profile", cookie: cookie, form: "csrf=\(client.csrf(cookie))&birthDate=1985-02-29")
            #expect(badDate.status == .badRequest)
            #expect(badDate.body.contains("The date of birth must be a calendar day"))
            #expect(try await fixture.store.ownerProfile().isEmpty)

            let saved = try await client.send(.post, "/profile", cookie: cookie, form: "csrf=\(client.csrf(cookie))&" + form)
            #expect(saved.status == .seeOther)
            #expect(saved.headers[.location] == "/profile?saved=1")
            let page = try await client.send(.get, "/profile?saved=1", cookie: cookie)
            for text in ["Profile saved.", "<dt>Name</dt><dd>Zelinda Quarrington</dd>", "<dt>Date of birth</dt><dd>29 February 1984</dd>",
                         "<dt>Blood type</dt><dd>AB−</dd>", "<dt>Organ donor</dt><dd>Yes</dd>", "<dd>Asthma; Hay fever</dd>",
                         "Orlando Quarrington (brother): <a href=\"tel:+1 555 0199\">+1 555 0199</a>",
                         "<option value=\"female\" selected>Female</option>", "value=\"1984-02-29\"", "name=\"contactName1\""] {
                #expect(page.body.contains(text), "\(text)")
            }
            // Clearing a contact's name removes it.
            let removed = try await client.send(.post, "/profile", cookie: cookie,
                                                 form: "csrf=\(client.csrf(cookie))&contactName0=&contactPhone0=%2B1+555+0199&contactName1=&contactPhone1=")
            #expect(removed.status == .seeOther)
        }
        let profile = try await fixture.store.ownerProfile()
        #expect(profile.fullName == "Zelinda Quarrington")
        #expect(profile.medicalID.conditions == ["Asthma", "Hay fever"])
        #expect(profile.medicalID.allergies == ["Penicillin"] && profile.medicalID.medications.isEmpty)
        #expect(profile.medicalID.organDonor == true && profile.medicalID.notes == "Inhaler in the left pocket")
        #expect(profile.medicalID.emergencyContacts.isEmpty)
        #expect(try fixture.store.bloodType().bloodType == .abNegative)
        #expect(try fixture.store.biologicalSex().biologicalSex == .female)
        #expect(try fixture.store.dateOfBirthComponents().day == 29)
    }

    @Test("the records page refuses another person's records, naming both, and imports them when the form says to import anyway")
    func otherPersonImport() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await fixture.store.saveOwnerProfile(HKOwnerProfile(givenName: "Zelinda", familyName: "Quarrington",
                                                                 dateOfBirth: DateComponents(year: 1984, month: 2, day: 29)))
        let (refused, imported) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            func post(anyway: Bool) async throws -> WebAnswer {
                var body = MultipartBody().field("csrf", client.csrf(cookie))
                if anyway { body = body.field("allowOtherPerson", "yes") }
                body = body.file("files", filename: "antonio.json", Array(Self.otherPatientBundle.utf8), type: "application/fhir+json").closed
                let started = try await client.send(.post, "/records/import", cookie: cookie, multipart: body)
                let location = started.headers[.location] ?? ""
                await fixture.webApp.jobs.waitUntilFinished(String(location.dropFirst("/jobs/".count)))
                return try await client.send(.get, location, cookie: cookie)
            }
            return (try await post(anyway: false), try await post(anyway: true))
        }
        #expect(refused.body.contains("Antonio Castellanos (born 1962-09-28)"), "\(refused.body)")
        #expect(refused.body.contains("Zelinda Quarrington (born 1984-02-29)"))
        #expect(refused.body.contains("choose the files again and tick"))
        #expect(imported.body.contains("Imported 1 record(s)."), "\(imported.body)")
        #expect(try await RecordsImportTests.records(in: fixture.store) == 1)
    }

    @Test("saving the page keeps the emergency contacts past those the form shows (the CLI adds without a limit)")
    func contactsPastTheForm() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        var profile = HKOwnerProfile(givenName: "Zelinda", familyName: "Quarrington")
        profile.medicalID.emergencyContacts = (1...25).map { .init(name: "Contact \($0)", relationship: "", phone: "+1 555 01\($0)") }
        try await fixture.store.saveOwnerProfile(profile)
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            // The form as the page shows it: the first contacts, one renamed.
            let rows = (0..<20).map { "&contactName\($0)=Contact+\($0 == 0 ? "One" : String($0 + 1))&contactPhone\($0)=%2B1+555+01\($0 + 1)" }.joined()
            let saved = try await client.send(.post, "/profile", cookie: cookie, form: "csrf=\(client.csrf(cookie))" + rows)
            #expect(saved.status == .seeOther)
        }
        let contacts = try await fixture.store.ownerProfile().medicalID.emergencyContacts
        #expect(contacts.count == 25)
        #expect(contacts.first?.name == "Contact One" && contacts.last?.name == "Contact 25")
    }
}
