import Foundation
import HealthWebApp
import OpenHealthKit
import Testing
import TestSupport

@Suite("Importing FHIR files from the Health records page")
struct RecordsImportTests {
    static func records(in store: HKHealthStore) async throws -> Int {
        var count = 0
        for type in HKObjectType.allClinicalTypes { count += try await store.count(of: type) }
        return count
    }

    @Test("""
        several files (a resource, a Synthea Bundle, a corrupt file) import as a job whose progress page ends on a summary; the corrupt file's error \
        is shown and the rest is stored
        """)
    func importFiles() async throws {
        let fixture = try await WebTestFixture.make(days: 1, uploadLimit: 8 << 20)
        let synthea = TestData.fhirExamples.appendingPathComponent("synthea-r4/Reginald_Auer_d46fae79-67eb-4721-a300-238c8eb943eb.json")
        let bundle = Array(try Data(contentsOf: synthea))
        let (page, started, result) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let page = try await client.send(.get, "/records", cookie: cookie)
            let body = MultipartBody().field("csrf", client.csrf(cookie))
                .file("files", filename: "hb1.json", Array(RecordsPageTests.observation.utf8), type: "application/fhir+json")
                .file("files", filename: "patient.json", bundle, type: "application/fhir+json")
                .file("files", filename: "broken.json", Array("{\"resourceType\": \"Observation\", ".utf8)).closed
            let started = try await client.send(.post, "/records/import", cookie: cookie, multipart: body)
            let location = started.headers[.location] ?? ""
            await fixture.webApp.jobs.waitUntilFinished(String(location.dropFirst("/jobs/".count)))
            return (page, started, try await client.send(.get, location, cookie: cookie))
        }
        #expect(page.body.contains("action=\"/records/import\" enctype=\"multipart/form-data\""))
        #expect(started.status == .seeOther)
        #expect(started.headers[.location]?.hasPrefix("/jobs/") == true)
        let stored = try await Self.records(in: fixture.store)
        #expect(stored > 100)
        #expect(result.status == .ok)
        #expect(result.body.contains("Imported \(stored) record(s); 1 problem(s), listed below."))
        #expect(result.body.contains("<h3>broken.json</h3>"))
        #expect(result.body.contains("Lab Results: "))
        #expect(result.body.contains("Skipped (not clinical records): "))
        #expect(!result.body.contains("http-equiv=\"refresh\""))
        // The progress counted each file read and each record stored, not files alone.
        let job = try #require(fixture.webApp.jobs.progress(of: String((started.headers[.location] ?? "").dropFirst("/jobs/".count))))
        #expect(job.total == 3 + stored)
        #expect(job.done == job.total)
    }

    @Test("DSTU2 files import when the form says 1.0.2, and are refused as R4; an unknown version is refused")
    func dstu2() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let file = Array(try Data(contentsOf: TestData.fhirExamples.appendingPathComponent("dstu2-spec/Condition-example.json")))
        let (asDSTU2, wrong) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            func post(_ version: String) async throws -> WebAnswer {
                let body = MultipartBody().field("csrf", client.csrf(cookie)).field("fhirVersion", version)
                    .file("files", filename: "Condition-example.json", file).closed
                let started = try await client.send(.post, "/records/import", cookie: cookie, multipart: body)
                guard let location = started.headers[.location] else { return started }
                await fixture.webApp.jobs.waitUntilFinished(String(location.dropFirst("/jobs/".count)))
                return try await client.send(.get, location, cookie: cookie)
            }
            return (try await post("1.0.2"), try await post("3.0.2"))
        }
        #expect(asDSTU2.body.contains("Imported 1 record(s)."))
        #expect(asDSTU2.body.contains("Conditions: 1"))
        #expect(wrong.status == .badRequest)
        #expect(try await fixture.store.count(of: HKClinicalType(.conditionRecord)) == 1)
    }

    @Test("a running job's page shows a <progress> bar and refreshes itself with no script; once done it shows its result")
    func progressPage() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let gate = Inbox<Int>(), reached = Inbox<Int>()
        let id = fixture.webApp.jobs.start(title: "Counting", total: 4, origin: "/records") { reporter in
            reporter.done(1)
            reached.append(1)
            _ = await gate.wait(for: 1)
            reporter.done(4)
            return ("<p>All counted.</p>", "Done counting.")
        }
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            _ = await reached.wait(for: 1)
            let running = try await client.send(.get, "/jobs/\(id)", cookie: cookie)
            #expect(running.status == .ok)
            #expect(running.body.contains("<meta http-equiv=\"refresh\" content=\"1\">"))
            #expect(running.body.contains("<progress id=\"job-progress\" max=\"4\" value=\"1\">25 %</progress>"))
            #expect(running.body.contains("1 of 4 done"))
            #expect(!running.body.contains("<script"))
            #expect(running.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            gate.append(1)
            await fixture.webApp.jobs.waitUntilFinished(id)
            let done = try await client.send(.get, "/jobs/\(id)", cookie: cookie)
            #expect(done.body.contains("<p>All counted.</p>"))
            #expect(done.body.contains("Done counting."))
            #expect(!done.body.contains("http-equiv=\"refresh\""))
            #expect(try await client.send(.get, "/jobs/unknown", cookie: cookie).status == .notFound)
        }
    }

    @Test("an upload over the limit answers 413 and changes nothing; a multipart form without its CSRF token answers 403; a malformed one 400")
    func refusals() async throws {
        let fixture = try await WebTestFixture.make(days: 1, uploadLimit: 64 << 10)
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let huge = MultipartBody().field("csrf", client.csrf(cookie)).file("files", filename: "big.json", [UInt8](repeating: 0x20, count: 200 << 10)).closed
            let tooLarge = try await client.send(.post, "/records/import", cookie: cookie, multipart: huge)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.body.contains("larger than the limit"))
            let noToken = MultipartBody().file("files", filename: "hb1.json", Array(RecordsPageTests.observation.utf8)).closed
            #expect(try await client.send(.post, "/records/import", cookie: cookie, multipart: noToken).status == .forbidden)
            let cardNoToken = MultipartBody().field("shc", "shc:/5676").closed
            #expect(try await client.send(.post, "/cards/add", cookie: cookie, multipart: cardNoToken).status == .forbidden)
            // Not closed: the body ends inside its last part.
            let malformed = try await client.send(.post, "/records/import", cookie: cookie,
                                                  multipart: MultipartBody().field("csrf", client.csrf(cookie))
                                                      .file("files", filename: "a.json", Array("{}".utf8)))
            #expect(malformed.status == .badRequest)
            #expect(malformed.body.contains("The upload could not be read"))
        }
        #expect(try await Self.records(in: fixture.store) == 0)
    }
}
