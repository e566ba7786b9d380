import Foundation
import HealthWebApp
import OpenHealthKit
import Testing

/// Deleting asks first (a confirmation page), and the "Recently deleted" page restores.
@Suite("Delete confirmation and Recently deleted pages")
struct RecentlyDeletedPageTests {
    @Test("Delete shows what will go and deletes nothing; confirming deletes; Restore brings the sample back")
    func confirmDeleteRestore() async throws {
        let fixture = try await WebTestFixture.make(days: 3)
        let type = HKQuantityType(.bodyMass)
        let before = try await fixture.store.count(of: type)
        let victim = try #require(try await fixture.store.newest(of: type) as? HKQuantitySample)
        let kilograms = victim.quantity.doubleValue(for: .gramUnit(with: .kilo))
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let csrf = client.csrf(cookie)
            let page = try await client.send(.get, "/browse/\(type.identifier)", cookie: cookie)
            // The row's Delete is a link-like form (GET): it only asks.
            #expect(page.body.contains("<form method=\"get\" action=\"/browse/\(type.identifier)/delete\">"))
            #expect(page.body.contains("href=\"/recently-deleted\""))

            let confirm = try await client.send(.get, "/browse/\(type.identifier)/delete?uuid=\(victim.uuid.uuidString)", cookie: cookie)
            #expect(confirm.status == .ok)
            #expect(confirm.body.contains("<h1>Delete Weight?</h1>"))
            #expect(confirm.body.contains("This Weight sample will be deleted."))
            #expect(confirm.body.contains("<td>Weight</td>"))
            #expect(confirm.body.contains("name=\"csrf\" value=\"\(csrf)\""))
            #expect(confirm.body.contains("name=\"confirm\" value=\"yes\""))
            #expect(confirm.body.contains("<button type=\"submit\" class=\"danger\">Delete</button>"))
            #expect(confirm.body.contains("<a class=\"cancel\" href=\"/browse/\(type.identifier)\">Cancel</a>"))
            #expect(try await fixture.store.count(of: type) == before)

            // An old page's form (no confirmation) asks too, and deletes nothing.
            let unconfirmed = try await client.send(.post, "/browse/\(type.identifier)/delete", cookie: cookie,
                                                    form: "csrf=\(csrf)&uuid=\(victim.uuid.uuidString)")
            #expect(unconfirmed.status == .ok && unconfirmed.body.contains("will be deleted"))
            #expect(try await fixture.store.count(of: type) == before)
            // Without the CSRF token, nothing happens.
            let forged = try await client.send(.post, "/browse/\(type.identifier)/delete", cookie: cookie,
                                               form: "uuid=\(victim.uuid.uuidString)&confirm=yes")
            #expect(forged.status == .forbidden)

            let deleted = try await client.send(.post, "/browse/\(type.identifier)/delete", cookie: cookie,
                                                form: "csrf=\(csrf)&uuid=\(victim.uuid.uuidString)&confirm=yes")
            #expect(deleted.status == .seeOther)
            #expect(try await fixture.store.count(of: type) == before - 1)

            let list = try await client.send(.get, "/recently-deleted", cookie: cookie)
            #expect(list.status == .ok && list.body.contains("<h1>Recently deleted</h1>"))
            #expect(list.body.contains("<li><div><strong>Weight</strong> "))
            let items = try await fixture.store.recentlyDeletedItems()
            let item = try #require(items.first)
            #expect(items.count == 1 && item.sample.uuid == victim.uuid)
            #expect(list.body.contains("name=\"id\" value=\"\(item.id)\""))
            #expect(list.body.contains("action=\"/recently-deleted/restore\""))

            let noToken = try await client.send(.post, "/recently-deleted/restore", cookie: cookie, form: "id=\(item.id)")
            #expect(noToken.status == .forbidden)
            let restored = try await client.send(.post, "/recently-deleted/restore", cookie: cookie, form: "csrf=\(csrf)&id=\(item.id)")
            #expect(restored.status == .seeOther && restored.headers[.location] == "/recently-deleted?restored=1")
            let after = try await client.send(.get, "/recently-deleted?restored=1", cookie: cookie)
            #expect(after.body.contains("Restored 1 sample: it is back in Browse."))
            #expect(after.body.contains("Nothing was deleted in the last 30 days."))
            let again = try await client.send(.post, "/recently-deleted/restore", cookie: cookie, form: "csrf=\(csrf)&id=\(item.id)")
            #expect(again.status == .notFound)
        }
        #expect(try await fixture.store.count(of: type) == before)
        let back = try #require(try await fixture.store.newest(of: type) as? HKQuantitySample)
        #expect(back.uuid != victim.uuid)
        #expect(back.quantity.doubleValue(for: .gramUnit(with: .kilo)) == kilograms)
        #expect(back.startDate == victim.startDate && back.endDate == victim.endDate)
    }

    @Test("Deleting some days lists their count and the first samples, and deletes only them once confirmed")
    func deleteDays() async throws {
        let fixture = try await WebTestFixture.make(days: 3)
        let type = HKQuantityType(.heartRate)
        let before = try await fixture.store.count(of: type)
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let csrf = client.csrf(cookie)
            let confirm = try await client.send(.get, "/browse/\(type.identifier)/delete?from=2025-11-25&to=2025-11-26", cookie: cookie)
            #expect(confirm.status == .ok)
            #expect(confirm.body.contains("12 Heart Rate samples from 2025-11-25 to 2025-11-26 will be deleted. The newest 10 are listed."))
            #expect(confirm.body.components(separatedBy: "<td>Heart Rate</td>").count - 1 == 10)
            #expect(confirm.body.contains(">Delete 12 samples</button>"))
            #expect(try await fixture.store.count(of: type) == before)
            let bad = try await client.send(.get, "/browse/\(type.identifier)/delete?from=2025-11-26&to=2025-11-25", cookie: cookie)
            #expect(bad.status == .badRequest)
            let deleted = try await client.send(.post, "/browse/\(type.identifier)/delete", cookie: cookie,
                                                form: "csrf=\(csrf)&from=2025-11-25&to=2025-11-26&confirm=yes")
            #expect(deleted.headers[.location] == "/browse/\(type.identifier)?deleted=12")
        }
        #expect(try await fixture.store.count(of: type) == before - 12)
        #expect(try await fixture.store.recentlyDeletedItems().count == 12)
    }
}
