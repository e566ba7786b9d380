import Foundation
import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Settings page")
struct SettingsPageTests {
    @Test("""
        units chosen on the page are stored as the store's preferred units and used by Summary and Browse; a form without CSRF or with an unknown unit \
        changes nothing
        """)
    func roundTrip() async throws {
        let fixture = try await WebTestFixture.make(days: 3)
        let bodyMass = HKQuantityType(.bodyMass)
        let glucose = HKQuantityType(.bloodGlucose)
        let before = try await fixture.store.preferredUnits(for: [bodyMass, glucose])
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let page = try await client.send(.get, "/settings", cookie: cookie)
            #expect(page.status == .ok)
            #expect(page.body.contains("<label for=\"unit-weight\">Body weight</label>"))
            #expect(page.body.contains("<a href=\"/settings\" aria-current=\"page\">Settings</a>"))

            let withoutToken = try await client.send(.post, "/settings", cookie: cookie, form: "weight=lb&glucose=mg")
            #expect(withoutToken.status == .forbidden)
            let unknown = try await client.send(.post, "/settings", cookie: cookie, form: "csrf=\(client.csrf(cookie))&weight=lb&glucose=grains")
            #expect(unknown.status == .badRequest)
            #expect(unknown.body.contains("nothing was changed"))
            #expect(try await fixture.store.preferredUnits(for: [bodyMass, glucose]) == before)

            let saved = try await client.send(.post, "/settings", cookie: cookie, form: "csrf=\(client.csrf(cookie))&weight=lb&glucose=mg&temperature=default")
            #expect(saved.status == .seeOther)
            #expect(saved.headers[.location] == "/settings?saved=1")
            let after = try await client.send(.get, "/settings?saved=1", cookie: cookie)
            #expect(after.body.contains("<option value=\"lb\" selected>pounds (lb)</option>"))
            #expect(after.body.contains("<option value=\"mg\" selected>mg/dL</option>"))
            #expect(after.body.contains("Units saved"))

            let summary = try await client.send(.get, "/summary", cookie: cookie)
            #expect(summary.body.contains("Weight (lb)"))
            let browse = try await client.send(.get, "/browse/HKQuantityTypeIdentifierBodyMass", cookie: cookie)
            #expect(browse.body.contains(" lb</td>"))
            #expect(!browse.body.contains(" kg</td>"))
        }
        let units = try await fixture.store.preferredUnits(for: [bodyMass, glucose])
        #expect(units[bodyMass] == .pound())
        #expect(units[glucose] == HKUnit(from: "mg/dL"))
    }
}
