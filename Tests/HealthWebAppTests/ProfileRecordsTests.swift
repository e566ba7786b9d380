import Foundation
import HealthRecords
@testable import HealthWebApp
import OpenHealthKit
import Testing
import TestSupport

@Suite("Profile records by person")
struct ProfileRecordsTests {
    static func record(_ id: String, _ reference: String) -> HKClinicalRecord {
        let json = """
            {"resourceType":"Condition","id":"\(id)","code":{"text":"Condition \(id)"},\(reference)"recordedDate":"2025-09-01"}
            """
        let date = Date(timeIntervalSince1970: 1_759_305_600)
        return HKClinicalRecord(type: HKClinicalType(.conditionRecord), startDate: date, endDate: date, displayName: "Condition \(id)",
                                fhirResource: HKFHIRResource(resourceType: .condition, identifier: id, data: Data(json.utf8),
                                                             sourceURL: nil, fhirVersion: .primaryR4()))
    }

    @Test("the Profile page groups the health records under the profile's person, flags another person's and counts those that name nobody")
    func grouped() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await fixture.store.saveOwnerProfile(HKOwnerProfile(givenName: "Zelinda", familyName: "Quarrington",
                                                                 dateOfBirth: DateComponents(year: 1984, month: 2, day: 29)))
        let records = [
            Self.record("a", "\"subject\":{\"reference\":\"Patient/z\",\"display\":\"Zelinda Quarrington\"},"),
            Self.record("b", "\"subject\":{\"reference\":\"Patient/z\",\"display\":\"Ms. Zelinda M. Quarrington\"},"),
            Self.record("c", "\"patient\":{\"reference\":\"Patient/p7\",\"display\":\"Antonio Castellanos\"},"),
            Self.record("d", "\"subject\":{\"reference\":\"Patient/q\"},"),
        ]
        try await fixture.store.saveHealthRecords(records, source: HKSource(name: "Example Clinic", bundleIdentifier: "org.example.clinic"))
        let page = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await client.send(.get, "/profile", cookie: cookie)
        }
        let part = try #require(page.body.range(of: "Health records by person")).upperBound
        let section = String(page.body[part...])
        let mine = try #require(section.range(of: "<h3>Zelinda Quarrington (you)</h3>"))
        let other = try #require(section.range(of: "<h3>Antonio Castellanos <span class=\"flag\">Another person&#39;s records</span></h3>")
                                 ?? section.range(of: "<h3>Antonio Castellanos <span class=\"flag\">Another person's records</span></h3>"))
        let unnamed = try #require(section.range(of: "<h3>Records whose patient cannot be told (Patient/q)</h3>"))
        #expect(mine.lowerBound < other.lowerBound && other.lowerBound < unnamed.lowerBound)
        #expect(section[mine.upperBound..<other.lowerBound].contains("2 record(s)"))
        #expect(section.contains("href=\"/records/\(records[2].uuid.uuidString)\""))
    }

    @Test("without a profile that names someone, records are listed but not compared")
    func noProfile() throws {
        let patient = try #require(ProfileRecords.patient(Data("{\"patient\":{\"display\":\"Antonio Castellanos\"}}".utf8)))
        let groups = ProfileRecords.groups([ProfileRecords.Bunch(patient: patient, records: [], more: false)], owner: nil)
        #expect(groups.count == 1 && groups.first?.kind == .unnamed && groups.first?.name == "Antonio Castellanos")
        #expect(ProfileRecords.patient(Data("not json".utf8)) == nil)
        #expect(ProfileRecords.patient(Data("{\"subject\":{\"reference\":\"urn:uuid:q1\"}}".utf8))?.reference == "Patient/q1")
    }

    /// The section of a page's "Health records by person" part under the heading that starts with `heading`, up to the next heading.
    static func group(_ body: String, _ heading: String) -> String? {
        guard let part = body.range(of: "Health records by person"), let start = body.range(of: "<h3>" + heading, range: part.upperBound..<body.endIndex)
        else { return nil }
        let end = body.range(of: "<h3>", range: start.upperBound..<body.endIndex)?.lowerBound
            ?? body.range(of: "</section>", range: start.upperBound..<body.endIndex)?.lowerBound ?? body.endIndex
        return String(body[start.lowerBound..<end])
    }

    /// The records a group lists, by their links.
    static func listed(_ group: String, in store: HKHealthStore) async throws -> [HKClinicalRecord] {
        let uuids = group.components(separatedBy: "href=\"/records/").dropFirst().compactMap { UUID(uuidString: String($0.prefix(36))) }
        let predicate = HKQuery.predicateForObjects(with: Set(uuids))
        return try await HKSampleQueryDescriptor(predicates: HKObjectType.allClinicalTypes.map { .clinicalRecord(type: $0, predicate: predicate) },
                                                 sortDescriptors: []).result(for: store)
    }

    @Test("""
        the demo's Synthea patient, imported from the Records page, is the profile's person; \
        another person's bundle imported anyway is flagged with its name and birth date
        """)
    func synthea() async throws {
        let fixture = try await WebTestFixture.make(days: 1, uploadLimit: 8 << 20)
        try await fixture.store.saveOwnerProfile(HKOwnerProfile(givenName: "Antonio", familyName: "Castellanos",
                                                                 dateOfBirth: DateComponents(year: 1991, month: 6, day: 8)))
        let folder = TestData.fhirExamples.appendingPathComponent("synthea-r4")
        let antonio = Array(try Data(contentsOf: folder.appendingPathComponent("Antonio_Castellanos_6d2eba67-5b4a-403f-a29f-e6da3f1ea963.json")))
        let reginald = Array(try Data(contentsOf: folder.appendingPathComponent("Reginald_Auer_d46fae79-67eb-4721-a300-238c8eb943eb.json")))
        let (alone, both) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            func upload(_ name: String, _ bytes: [UInt8], anyway: Bool) async throws {
                var body = MultipartBody().field("csrf", client.csrf(cookie))
                if anyway { body = body.field("allowOtherPerson", "yes") }
                let started = try await client.send(.post, "/records/import", cookie: cookie, multipart: body.file("files", filename: name, bytes).closed)
                let location = try #require(started.headers[.location])
                await fixture.webApp.jobs.waitUntilFinished(String(location.dropFirst("/jobs/".count)))
            }
            try await upload("antonio.json", antonio, anyway: false)
            let alone = try await client.send(.get, "/profile", cookie: cookie).body
            try await upload("reginald.json", reginald, anyway: true)
            return (alone, try await client.send(.get, "/profile", cookie: cookie).body)
        }
        // Alone: every record is the profile's person's; none is of someone else or unknown.
        let mine = try #require(Self.group(alone, "Antonio Castellanos (you)"))
        #expect(mine.contains("The newest 10 record(s), born 1991-06-08."))
        #expect(!alone.contains("class=\"flag\""))
        #expect(!alone.contains("cannot be told"))
        // Both: the owner first, then the other person, flagged; each lists only that person's records.
        let owner = try #require(Self.group(both, "Antonio Castellanos (you)"))
        let other = try #require(Self.group(both, "Reginald Auer <span class=\"flag\">"))
        #expect(try #require(both.range(of: owner)).lowerBound < (try #require(both.range(of: other)).lowerBound))
        #expect(other.contains("born 1941-08-11: imported anyway; they are not yours."))
        #expect(!both.contains("cannot be told"))
        for (group, family) in [(owner, "Castellanos"), (other, "Auer")] {
            let listed = try await Self.listed(group, in: fixture.store)
            #expect(listed.count == ProfileRecords.listLimit)
            #expect(listed.allSatisfy { $0.metadata?["OpenHealthKitPatientFamilyName"] as? String == family })
        }
    }

    @Test("a record whose Patient came in another file is named by the records of the same patient; one that nothing names is kept apart")
    func resolvedByReference() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await fixture.store.saveOwnerProfile(HKOwnerProfile(givenName: "Zelinda", familyName: "Quarrington",
                                                                 dateOfBirth: DateComponents(year: 1984, month: 2, day: 29)))
        let bundle = """
            {"resourceType":"Bundle","type":"collection","entry":[
            {"fullUrl":"urn:uuid:z1","resource":{"resourceType":"Patient","id":"z1",\
            "name":[{"family":"Quarrington","given":["Zelinda"]}],"birthDate":"1984-02-29"}},
            {"fullUrl":"urn:uuid:c1","resource":{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"},\
            "subject":{"reference":"urn:uuid:z1"},"recordedDate":"2024-01-02"}}]}
            """
        let later = """
            {"resourceType":"Condition","id":"c2","code":{"text":"Hay fever"},"subject":{"reference":"Patient/z1"},"recordedDate":"2024-05-02"}
            {"resourceType":"Condition","id":"c3","code":{"text":"Cough"},"subject":{"reference":"Patient/unknown"},"recordedDate":"2024-05-03"}
            """
        let page = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let body = MultipartBody().field("csrf", client.csrf(cookie)).file("files", filename: "bundle.json", Array(bundle.utf8))
                .file("files", filename: "later.ndjson", Array(later.utf8)).closed
            let started = try await client.send(.post, "/records/import", cookie: cookie, multipart: body)
            let location = try #require(started.headers[.location])
            await fixture.webApp.jobs.waitUntilFinished(String(location.dropFirst("/jobs/".count)))
            return try await client.send(.get, "/profile", cookie: cookie).body
        }
        let mine = try #require(Self.group(page, "Zelinda Quarrington (you)"))
        #expect(mine.contains("2 record(s), born 1984-02-29.") && mine.contains(">Asthma<") && mine.contains(">Hay fever<"))
        let apart = try #require(Self.group(page, "Records whose patient cannot be told (Patient/unknown)"))
        #expect(apart.contains(">Cough<") && !apart.contains(">Asthma<"))
    }

    /// A condition dated `day` days after 2020-01-01, about `subject` (a JSON member, or "").
    static func record(_ id: String, _ subject: String, day: Int) -> HKClinicalRecord {
        let date = Date(timeIntervalSince1970: 1_577_836_800 + Double(day) * 86_400)
        let json = #"{"resourceType":"Condition","id":"\#(id)","code":{"text":"Condition \#(id)"},\#(subject)"recordedDate":"2020-01-01"}"#
        return HKClinicalRecord(type: HKClinicalType(.conditionRecord), startDate: date, endDate: date, displayName: "Condition \(id)",
                                fhirResource: HKFHIRResource(resourceType: .condition, identifier: id, data: Data(json.utf8),
                                                             sourceURL: nil, fhirVersion: .primaryR4()))
    }

    @Test("""
        records saved before the import kept their patient (none in their metadata) all count, however old: another person's five \
        records older than 230 of the owner's are flagged; each record is given its patient once, in place, and the pass is not run again
        """)
    func storedBeforeThePatientWasKept() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await fixture.store.saveOwnerProfile(HKOwnerProfile(givenName: "Zelinda", familyName: "Quarrington",
                                                                 dateOfBirth: DateComponents(year: 1984, month: 2, day: 29)))
        let antonio = (0..<5).map { Self.record("a\($0)", #""patient":{"reference":"Patient/p7","display":"Antonio Castellanos"},"#, day: $0) }
        let mine = (0..<230).map { Self.record("z\($0)", #""subject":{"reference":"Patient/z","display":"Zelinda Quarrington"},"#, day: 10 + $0) }
        let nobody = [Self.record("n0", "", day: 5)]
        try await fixture.store.saveHealthRecords(antonio + mine + nobody, source: HKSource(name: "Example Clinic", bundleIdentifier: "org.example.clinic"))
        #expect(try await fixture.store.hasCompletedStorePass(HealthRecordPatient.storedRecordsPass) == false)
        let (first, second, records) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return (try await client.send(.get, "/profile", cookie: cookie).body, try await client.send(.get, "/profile", cookie: cookie).body,
                    try await client.send(.get, "/records", cookie: cookie).body)
        }
        #expect(first == second)
        let owner = try #require(Self.group(first, "Zelinda Quarrington (you)"))
        #expect(owner.contains("The newest 10 record(s), born 1984-02-29."))
        let other = try #require(Self.group(first, "Antonio Castellanos <span class=\"flag\">"))
        #expect(other.contains("5 record(s)"))
        #expect(try await Self.listed(other, in: fixture.store).map(\.uuid).sorted { $0.uuidString < $1.uuidString }
                == antonio.map(\.uuid).sorted { $0.uuidString < $1.uuidString })
        let apart = try #require(Self.group(first, "Records whose patient cannot be told"))
        #expect(apart.contains("href=\"/records/\(nobody[0].uuid.uuidString)\""))
        // Each record kept its UUID and has its patient in its metadata now; the pass ran once.
        #expect(try await fixture.store.hasCompletedStorePass(HealthRecordPatient.storedRecordsPass))
        let stored = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.conditionRecord))],
                                                       sortDescriptors: []).result(for: fixture.store)
        #expect(Set(stored.map(\.uuid)) == Set((antonio + mine + nobody).map(\.uuid)))
        #expect(stored.allSatisfy { $0.metadata?[HealthRecordPatient.referenceKey] is String })
        #expect(try await HealthRecordPatient.completeStoredRecords(in: fixture.store) == 0)
        // The records list flags the other person's five records, with the Profile's words, and only those.
        #expect(records.components(separatedBy: "<span class=\"flag\">Another person&#39;s record</span>").count
                + records.components(separatedBy: "<span class=\"flag\">Another person's record</span>").count - 2 == 5)
        #expect(records.contains("<span class=\"muted\">Antonio Castellanos</span>"))
    }

    @Test("a Patient imported from the Records page in a file of its own names the records that refer to it, before or after them",
          arguments: [false, true])
    func patientInItsOwnFile(patientFirst: Bool) async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await fixture.store.saveOwnerProfile(HKOwnerProfile(givenName: "Zelinda", familyName: "Quarrington",
                                                                 dateOfBirth: DateComponents(year: 1984, month: 2, day: 29)))
        let conditions = """
            {"resourceType":"Condition","id":"c1","code":{"text":"Asthma"},"subject":{"reference":"Patient/r9"},"recordedDate":"2024-01-02"}
            {"resourceType":"Condition","id":"c2","code":{"text":"Hay fever"},"subject":{"reference":"Patient/z"},"recordedDate":"2024-01-03"}
            """
        let patients = """
            {"resourceType":"Patient","id":"r9","name":[{"family":"Example","given":["Rita"]}],"birthDate":"1950-03-04"}
            {"resourceType":"Patient","id":"z","name":[{"family":"Quarrington","given":["Zelinda"]}],"birthDate":"1984-02-29"}
            """
        let files = [("conditions.ndjson", conditions), ("Patient.ndjson", patients)]
        let (profile, list, pages) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            for (name, text) in patientFirst ? files.reversed() : files {
                let body = MultipartBody().field("csrf", client.csrf(cookie)).field("allowOtherPerson", "yes").file("files", filename: name, Array(text.utf8))
                let started = try await client.send(.post, "/records/import", cookie: cookie, multipart: body.closed)
                let location = try #require(started.headers[.location])
                await fixture.webApp.jobs.waitUntilFinished(String(location.dropFirst("/jobs/".count)))
            }
            let records = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.conditionRecord))],
                                                            sortDescriptors: [SortDescriptor(\HKClinicalRecord.startDate)]).result(for: fixture.store)
            var pages: [String] = []
            for record in records { pages.append(try await client.send(.get, "/records/\(record.uuid.uuidString)", cookie: cookie).body) }
            return (try await client.send(.get, "/profile", cookie: cookie).body, try await client.send(.get, "/records", cookie: cookie).body, pages)
        }
        let rita = try #require(Self.group(profile, "Rita Example <span class=\"flag\">"))
        #expect(rita.contains("1 record(s), born 1950-03-04") && rita.contains(">Asthma<"))
        let mine = try #require(Self.group(profile, "Zelinda Quarrington (you)"))
        #expect(mine.contains(">Hay fever<"))
        #expect(!profile.contains("cannot be told"))
        try #require(pages.count == 2)
        #expect(pages[0].contains("Rita Example, born 1950-03-04: another person&#39;s record, not yours")
                || pages[0].contains("Rita Example, born 1950-03-04: another person's record, not yours"))
        #expect(pages[1].contains("Zelinda Quarrington, born 1984-02-29 (you)"))
        #expect(list.contains("<span class=\"muted\">Rita Example, born 1950-03-04</span>"))
        #expect(list.components(separatedBy: "class=\"flag\"").count == 2)
    }
}
