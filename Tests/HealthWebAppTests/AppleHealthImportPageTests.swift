import Foundation
@testable import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Apple Health import page")
struct AppleHealthImportPageTests {
    /// A small export.xml as the Health app writes it: two weights, a sleep stage, a step count and an element the importer skips.
    static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2025-11-20 12:00:00 +0100"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="1984-02-29" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" \
        HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" \
        HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
         <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Jane’s iPhone" sourceVersion="17.1" unit="lb" \
        creationDate="2025-11-18 07:00:00 +0100" startDate="2025-11-18 07:00:00 +0100" endDate="2025-11-18 07:00:00 +0100" value="154.3"/>
         <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Jane’s iPhone" sourceVersion="17.1" unit="kg" \
        creationDate="2025-11-19 07:00:00 +0100" startDate="2025-11-19 07:00:00 +0100" endDate="2025-11-19 07:00:00 +0100" value="70.1"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Jane’s iPhone" sourceVersion="17.1" unit="count" \
        creationDate="2025-11-19 10:00:00 +0100" startDate="2025-11-19 09:00:00 +0100" endDate="2025-11-19 10:00:00 +0100" value="1200"/>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Jane’s iPhone" sourceVersion="17.1" creationDate="2025-11-19 03:00:00 +0100" \
        startDate="2025-11-19 01:00:00 +0100" endDate="2025-11-19 03:00:00 +0100" value="HKCategoryValueSleepAnalysisAsleepCore"/>
         <Record type="HKDataTypeSleepDurationGoal" sourceName="Jane’s iPhone" unit="hr" creationDate="2025-11-19 12:00:00 +0100" \
        startDate="2025-11-19 12:00:00 +0100" endDate="2025-11-19 12:00:00 +0100" value="8"/>
        </HealthData>

        """

    /// Uploads `bytes` as `filename` and returns the job's finished page.
    static func upload(_ fixture: WebTestFixture, _ bytes: [UInt8], filename: String, anyway: Bool = false) async throws -> (WebAnswer, WebAnswer) {
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await upload(fixture, client, cookie, bytes, filename: filename, anyway: anyway)
        }
    }

    static func upload(_ fixture: WebTestFixture, _ client: WebClient, _ cookie: String, _ bytes: [UInt8], filename: String,
                       anyway: Bool = false) async throws -> (WebAnswer, WebAnswer) {
        let form = try await client.send(.get, "/import/apple-health", cookie: cookie)
        var body = MultipartBody().field("csrf", client.csrf(cookie))
        if anyway { body = body.field("allowOtherPerson", "yes") }
        body = body.file("export", filename: filename, bytes, type: "application/octet-stream").closed
        let started = try await client.send(.post, "/import/apple-health", cookie: cookie, multipart: body)
        let location = try #require(started.headers[.location])
        #expect(started.status == .seeOther && location.hasPrefix("/jobs/"))
        await fixture.webApp.jobs.waitUntilFinished(String(location.dropFirst("/jobs/".count)))
        return (form, try await client.send(.get, location, cookie: cookie))
    }

    /// The job's page ends on the summary by type in the CLI's words; the samples are in the store;
    /// importing it again stores 0 new, 4 already in the store; no temporary file stays.
    @Test("an uploaded export is imported in a background job ending on its summary; imported again: 0 new, 4 already in the store")
    func importsExport() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let weights = try await fixture.store.count(of: HKQuantityType(.bodyMass))
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let (form, done) = try await Self.upload(fixture, client, cookie, Array(Self.export.utf8), filename: "export.xml")
            #expect(form.status == .ok)
            #expect(form.body.contains("enctype=\"multipart/form-data\"") && form.body.contains("name=\"csrf\"") && form.body.contains("exports of up to 4 GB"))
            #expect(done.status == .ok)
            for text in ["Imported 4 samples in 1 batch; 0 already in the store; 2 not imported.", "Import of export.xml",
                         "<td>Weight</td><td>2</td><td>0</td>", "<td>Sleep</td><td>1</td><td>0</td>", "<td>Steps</td><td>1</td><td>0</td>",
                         "Not imported: 2.", "HKDataTypeSleepDurationGoal", "Characteristics set: 2."] {
                #expect(done.body.contains(text), "\(text): \(done.body)")
            }
            #expect(!done.body.contains("http-equiv=\"refresh\""))
            #expect(try await fixture.store.count(of: HKQuantityType(.bodyMass)) == weights + 2)
            // The same export again: nothing new, every sample found already in the store (no batch saved).
            let (_, again) = try await Self.upload(fixture, client, cookie, Array(Self.export.utf8), filename: "export.xml")
            for text in ["Imported 0 samples in 0 batches; 4 already in the store; 2 not imported.", "<td>Weight</td><td>0</td><td>2</td>",
                         "<td>Sleep</td><td>0</td><td>1</td>", "<td>Steps</td><td>0</td><td>1</td>"] {
                #expect(again.body.contains(text), "\(text): \(again.body)")
            }
            #expect(try await fixture.store.count(of: HKQuantityType(.bodyMass)) == weights + 2)
        }
        #expect(fixture.webApp.uploads.alive.isEmpty && fixture.webApp.uploads.createdCount == 2)
    }

    /// Its Me date of birth is not the profile's: refused with the reason unless the form says to
    /// import it anyway; a file that is not an export says so.
    @Test("an export of another person is refused with the reason unless the form says to import it anyway")
    func refusals() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await fixture.store.saveOwnerProfile(HKOwnerProfile(givenName: "Zelinda", familyName: "Quarrington",
                                                                 dateOfBirth: DateComponents(year: 1990, month: 5, day: 1)))
        let weights = try await fixture.store.count(of: HKQuantityType(.bodyMass))
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let (_, refused) = try await Self.upload(fixture, client, cookie, Array(Self.export.utf8), filename: "export.xml")
            #expect(refused.body.contains("export.xml was not imported"), "\(refused.body)")
            #expect(refused.body.contains("Import it even if it is another person"))
            #expect(try await fixture.store.count(of: HKQuantityType(.bodyMass)) == weights)
            let (_, anyway) = try await Self.upload(fixture, client, cookie, Array(Self.export.utf8), filename: "export.xml", anyway: true)
            #expect(anyway.body.contains("Imported 4 samples"), "\(anyway.body)")
            let (_, garbage) = try await Self.upload(fixture, client, cookie, Array("PK\u{3}\u{4} not a zip".utf8), filename: "export.zip")
            #expect(garbage.status == .ok && garbage.body.contains("export.zip was not imported"), "\(garbage.body)")
            let empty = try await client.send(.post, "/import/apple-health", cookie: cookie,
                                              multipart: MultipartBody().field("csrf", client.csrf(cookie)).closed)
            #expect(empty.status == .badRequest && empty.body.contains("nothing was imported"))
            let noToken = try await client.send(.post, "/import/apple-health", cookie: cookie,
                                                multipart: MultipartBody().file("export", filename: "export.xml", Array(Self.export.utf8),
                                                                                type: "text/xml").closed)
            #expect(noToken.status == .forbidden)
        }
    }
}
