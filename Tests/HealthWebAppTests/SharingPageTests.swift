import Foundation
import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Sharing page")
struct SharingPageTests {
    @Test("apps are listed with what they may read and write; revoking on the page takes effect on the app's next query")
    func revoke() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ohk-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let location = HKHealthStore.Location.file(folder.appendingPathComponent("health.sqlite"))
        let key = StoreKey.keyFile(folder.appendingPathComponent("health.key"))
        let owner = HKHealthStore(configuration: .init(location: location, key: key,
                                                       source: HKSource(name: "Owner", bundleIdentifier: "org.example.owner"), role: .owner))
        try owner.open()
        let heart = HKQuantityType(.heartRate)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        try await owner.save((0..<5).map { index in
            let date = WebTestFixture.now.addingTimeInterval(Double(-index) * 3600)
            return HKQuantitySample(type: heart, quantity: HKQuantity(unit: bpm, doubleValue: 60 + Double(index)), start: date, end: date)
        })
        let app = HKHealthStore(configuration: .init(location: location, key: key, source: HKSource(name: "Coach", bundleIdentifier: "com.example.coach"),
                                                     authorizationProvider: OwnerConsentAuthorizationProvider()))
        try await app.requestAuthorization(toShare: [heart], read: [heart, HKQuantityType(.stepCount)])
        let query = HKSampleQueryDescriptor(predicates: [.quantitySample(type: heart)], sortDescriptors: [])
        #expect(try await query.result(for: app).count == 5)

        let webApp = try HealthWebApp(store: owner, calendar: WebTestFixture.calendar, clock: { WebTestFixture.now })
        let fixture = WebTestFixture(store: owner, webApp: webApp)
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let page = try await client.send(.get, "/sharing", cookie: cookie)
            #expect(page.status == .ok)
            #expect(page.body.contains("<h3>com.example.coach</h3>"))
            #expect(page.body.contains("<th scope=\"row\">Heart Rate</th><td>allowed</td><td>allowed</td>"))
            #expect(page.body.contains("<th scope=\"row\">Step Count</th><td>allowed</td><td>not asked</td>"))
            #expect(page.body.contains("No app has asked for your verifiable records."))
            let refused = try await client.send(.post, "/sharing/revoke", cookie: cookie, form: "bundle=com.example.coach")
            #expect(refused.status == .forbidden)
            #expect(try await query.result(for: app).count == 5)
            let revoked = try await client.send(.post, "/sharing/revoke", cookie: cookie, form: "csrf=\(client.csrf(cookie))&bundle=com.example.coach")
            #expect(revoked.status == .seeOther)
            #expect(revoked.headers[.location] == "/sharing?changed=com.example.coach")
            let after = try await client.send(.get, "/sharing?changed=com.example.coach", cookie: cookie)
            #expect(after.body.contains("<th scope=\"row\">Heart Rate</th><td>denied</td><td>denied</td>"))
            #expect(!after.body.contains("Revoke all access of com.example.coach"))
        }
        #expect(try await query.result(for: app).isEmpty)
    }

    @Test("turning one type off leaves the others")
    func turnOff() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try fixture.store.setAppAuthorization(bundleIdentifier: "com.example.a", type: HKQuantityType(.heartRate), share: .authorized, read: .authorized)
        try fixture.store.setAppAuthorization(bundleIdentifier: "com.example.a", type: HKQuantityType(.stepCount), read: .authorized)
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let answer = try await client.send(.post, "/sharing/turn-off", cookie: cookie,
                                               form: "csrf=\(client.csrf(cookie))&bundle=com.example.a&type=HKQuantityTypeIdentifierHeartRate")
            #expect(answer.status == .seeOther)
            let bad = try await client.send(.post, "/sharing/turn-off", cookie: cookie, form: "csrf=\(client.csrf(cookie))&bundle=com.example.a&type=nope")
            #expect(bad.status == .badRequest)
        }
        let decisions = try fixture.store.appAuthorizationDecisions().filter { $0.bundleIdentifier == "com.example.a" }
        #expect(decisions.first { $0.typeIdentifier == HKQuantityType(.heartRate).identifier }.map { [$0.read, $0.share] } == [.denied, .denied])
        #expect(decisions.first { $0.typeIdentifier == HKQuantityType(.stepCount).identifier }?.read == .authorized)
    }
}

@Suite("Sharing page without a wallet")
struct SharingWithoutWalletTests {
    @Test("without a wallet the page says how to connect one, and the wallet's forms answer 404 and change nothing")
    func notConnected() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let page = try await client.send(.get, "/sharing", cookie: cookie)
            #expect(page.body.contains("No wallet is connected"))
            #expect(page.body.contains("health ui --identity FILE --server URL"))
            let grant = try await client.send(.post, "/sharing/wallet/grant", cookie: cookie,
                                              form: "csrf=\(client.csrf(cookie))&grantee=00000000-0000-4000-8000-000000000000")
            #expect(grant.status == .notFound)
        }
    }
}
