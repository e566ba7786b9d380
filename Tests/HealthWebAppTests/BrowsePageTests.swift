import Foundation
import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Browse pages")
struct BrowsePageTests {
    @Test("every type with data is listed under its group")
    func groups() async throws {
        let fixture = try await WebTestFixture.make(days: 3)
        let page = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await client.send(.get, "/browse", cookie: cookie)
        }
        #expect(page.status == .ok)
        for group in ["Activity", "Body Measurements", "Heart", "Sleep", "Vitals"] {
            #expect(page.body.contains(">\(group)</h2>"), "\(group)")
        }
        #expect(page.body.contains(">Nutrition</h2>")) // every type is listed, those without data for adding
        for type in ["HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierBodyMass",
                     "HKCategoryTypeIdentifierSleepAnalysis", "HKCorrelationTypeIdentifierBloodPressure"] {
            #expect(page.body.contains("href=\"/browse/\(type)\""), "\(type)")
        }
    }

    @Test("a type's page lists its samples with sources; the owner deletes one with the form, and it is gone")
    func deleteSample() async throws {
        let fixture = try await WebTestFixture.make(days: 3)
        let type = HKQuantityType(.bodyMass)
        let before = try await fixture.store.count(of: type)
        let newest = try await fixture.store.newest(of: type)
        let victim = try #require(newest)
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let page = try await client.send(.get, "/browse/\(type.identifier)", cookie: cookie)
            #expect(page.status == .ok)
            #expect(page.body.contains("<h1>Weight</h1>"))
            #expect(page.body.contains("value=\"\(victim.uuid.uuidString)\""))
            #expect(page.body.contains("<td>Owner</td>"))
            let deleted = try await client.send(.post, "/browse/\(type.identifier)/delete", cookie: cookie,
                                                form: "csrf=\(client.csrf(cookie))&uuid=\(victim.uuid.uuidString)&confirm=yes")
            #expect(deleted.status == .seeOther)
            #expect(deleted.headers[.location] == "/browse/\(type.identifier)?deleted=1")
            let after = try await client.send(.get, "/browse/\(type.identifier)?deleted=1", cookie: cookie)
            #expect(after.body.contains("Deleted 1 sample(s). Recently deleted keeps them for 30 days"))
            #expect(!after.body.contains(victim.uuid.uuidString))
            let unknown = try await client.send(.get, "/browse/noSuchType", cookie: cookie)
            #expect(unknown.status == .notFound)
            let badForm = try await client.send(.post, "/browse/\(type.identifier)/delete", cookie: cookie, form: "csrf=\(client.csrf(cookie))&uuid=nope")
            #expect(badForm.status == .badRequest)
        }
        #expect(try await fixture.store.count(of: type) == before - 1)
    }
}
