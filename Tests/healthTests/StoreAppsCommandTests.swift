import Foundation
import OpenHealthKit
import Testing

@Suite("health store apps: the apps' access, as the Health app's settings")
struct StoreAppsCommandTests {
    @Test("list, change, revoke and reset; the app's next query obeys")
    func manage() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let database = URL(fileURLWithPath: runner.store)
        let key = database.deletingLastPathComponent().appendingPathComponent("health.key")
        #expect(try await runner.run(["store", "add", "--type", "stepCount", "--value", "800",
                                      "--start", "2026-11-20T10:00:00Z", "--end", "2026-11-20T11:00:00Z"]).status == 0)
        let steps = HKQuantityType(.stepCount)
        let app = HKHealthStore(configuration: .init(location: .file(database), key: .keyFile(key),
                                                     source: HKSource(name: "Coach", bundleIdentifier: "org.example.coach")))
        try await app.requestAuthorization(toShare: [steps], read: [steps])
        func visible() async throws -> Int {
            try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: steps)], sortDescriptors: []).result(for: app).count
        }
        #expect(try await visible() == 1)

        let listed = try await runner.run(["store", "apps"])
        #expect(listed.status == 0, "\(listed.error)")
        #expect(listed.output.contains("org.example.coach") && listed.output.contains("Step Count"))
        #expect(listed.output.contains("read allowed"))

        let denied = try await runner.run(["store", "apps", "--app", "org.example.coach", "--type", "stepCount", "--read", "deny"])
        #expect(denied.status == 0, "\(denied.error)")
        #expect(denied.output.contains("read denied"))
        #expect(try await visible() == 0)

        #expect(try await runner.run(["store", "apps", "--app", "org.example.coach", "--type", "stepCount", "--read", "allow"]).status == 0)
        #expect(try await visible() == 1)

        let revoked = try await runner.run(["store", "apps", "--revoke", "org.example.coach", "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(revoked.output.utf8)) as? [[String: Any]])
        #expect(document.first?["read"] as? String == "denied" && document.first?["share"] as? String == "denied")
        #expect(try await visible() == 0)

        let reset = try await runner.run(["store", "apps", "--reset", "org.example.coach"])
        #expect(reset.output.contains("No app has asked for access."))
        #expect(app.authorizationStatus(for: steps) == .notDetermined)
    }

    @Test("Incomplete changes and unknown apps are usage errors", arguments: [
        (["store", "apps", "--app", "org.example.coach", "--read", "deny"], "needs --app, --type"),
        (["store", "apps", "--revoke", "org.example.nobody"], "no decisions on record"),
        (["store", "apps", "--app", "a", "--type", "stepCount", "--read", "maybe"], "maybe"),
    ])
    func refusals(arguments: [String], message: String) async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let result = try await runner.run(arguments)
        #expect(result.status == 2)
        #expect(result.error.contains(message), "\(result.error)")
    }
}

@Suite("Another process's changes", .timeLimit(.minutes(10)))
struct CrossProcessObserverTests {
    @Test("An observer query in this process hears of health store add in another")
    func observerHearsTheCLI() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        // Create the store (and its key) through the CLI first.
        #expect(try await runner.run(["store", "add", "--type", "heartRate", "--value", "60", "--unit", "count/min"]).status == 0)
        let database = URL(fileURLWithPath: runner.store)
        let key = database.deletingLastPathComponent().appendingPathComponent("health.key")
        let store = HKHealthStore(configuration: .init(location: .file(database), key: .keyFile(key),
                                                       source: HKSource(name: "Watcher", bundleIdentifier: "org.example.watcher"),
                                                       role: .owner))
        var iterator = HKObserverQueryDescriptor(predicates: [.sample(type: HKQuantityType(.stepCount))]).results(for: store)
            .makeAsyncIterator()
        #expect(try await iterator.next() == [HKQuantityType(.stepCount)])
        #expect(try await runner.run(["store", "add", "--type", "stepCount", "--value", "500"]).status == 0)
        #expect(try await iterator.next() == [HKQuantityType(.stepCount)])
    }
}
