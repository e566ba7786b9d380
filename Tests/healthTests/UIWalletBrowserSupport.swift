import Foundation
import OpenHealthKit
import Testing

/// What the Chromium test of `health ui` adds for Settings, Sharing (app revocation and the
/// wallet's grant and revoke against a real `health serve`) and accessibility checks
/// (scripts/ui-browser.py's `sharing_settings_and_a11y`).
extension UICommandTests {
    /// A `health serve` on loopback with a registered wallet (identity `w.json` in the runner's
    /// folder) and an app to grant to (`a.json`).
    struct WalletOnAServer {
        let runner: CommandRunner
        let server: ServeCommandTests.Server
        let identity: String
        /// The wallet's csiGuid.
        let csi: String
        /// The app's csiGuid.
        let grantee: String

        func stop() {
            server.process.terminate()
            server.process.waitUntilExit()
            runner.remove()
        }
    }

    static func walletOnAServer() async throws -> WalletOnAServer {
        let runner = CommandRunner()
        let server = try await ServeCommandTests.Server.start(runner)
        let identity = runner.folder.appendingPathComponent("w.json").path
        let wallet = try await runner.run(["wallet", "register", "--server", server.url, "--identity", identity, "--first-name", "Alice"])
        let app = try await runner.run(["app", "register", "--server", server.url, "--identity", runner.folder.appendingPathComponent("a.json").path])
        guard wallet.status == 0, app.status == 0 else {
            server.process.terminate()
            throw ServeCommandTests.TestFailure("registration failed: \(wallet.error) \(app.error)")
        }
        return WalletOnAServer(runner: runner, server: server, identity: identity, csi: wallet.output.trimmingCharacters(in: .whitespacesAndNewlines),
                               grantee: app.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// An app allowed to read the demo's steps, and its query.
    struct AuthorizedApp {
        let bundle = "com.example.coach"
        let store: HKHealthStore

        func stepCount() async throws -> Int {
            try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))], sortDescriptors: []).result(for: store).count
        }
    }

    static func checkSharingSettingsAndA11y(_ extra: [String: Any], coach: AuthorizedApp) async throws {
        func object(_ key: String) -> [String: Any] { extra[key] as? [String: Any] ?? [:] }
        #expect(object("pages").count >= 8)
        for (path, value) in object("pages") {
            let result = value as? [String: Any] ?? [:]
            #expect(result["status"] as? Int == 200, "\(path)")
            #expect((result["problems"] as? [String])?.isEmpty == true, "\(path): \(result["problems"] ?? "no report")")
        }
        for (path, count) in object("chartsWithoutTable") { #expect(count as? Int == 0, "a chart without its table on \(path)") }
        for (path, count) in object("unlabelled") { #expect(count as? Int == 0, "a control without a label on \(path)") }
        for (path, status) in object("withoutSession") { #expect(status as? Int == 401, "\(path) without the session") }
        #expect(object("withoutSession").count == 4)
        #expect(extra["settingsWithoutCsrf"] as? Int == 403)
        #expect((extra["settingsNotice"] as? String)?.contains("Units saved") == true)
        #expect(extra["weightInPounds"] as? Bool == true)
        #expect((extra["revokeNotice"] as? String)?.contains(coach.bundle) == true)
        // The revocation on the page takes effect on the app's next query.
        #expect(try await coach.stepCount() == 0)
        #expect(extra["walletVerified"] as? Int == 1)
        #expect((extra["grantNotice"] as? String)?.hasPrefix("Granted patient/Patient.rs conf≤N") == true, "\(extra["grantNotice"] ?? "")")
        #expect(extra["grantListed"] as? Int == 1)
        #expect((extra["revokeGrantNotice"] as? String)?.hasPrefix("Revoked 1 permission") == true, "\(extra["revokeGrantNotice"] ?? "")")
        #expect(extra["walletProblems"] as? Int == 0)
        #expect((extra["screenshots"] as? [String])?.count == 6)
        #expect(extra["overflow-phone"] as? Bool == false)
        #expect(extra["overflow-desktop"] as? Bool == false)
    }
}

extension UICommandTests.Running {
    /// Authorizes an app to read the demo's steps (as the app would ask and the owner allow) and checks it reads them.
    func authorizedApp() async throws -> UICommandTests.AuthorizedApp {
        let store = HKHealthStore(configuration: .init(location: .file(database), key: .keyFile(keyFile),
                                                       source: HKSource(name: "Coach", bundleIdentifier: "com.example.coach"),
                                                       authorizationProvider: OwnerConsentAuthorizationProvider()))
        try await store.requestAuthorization(toShare: [], read: [HKQuantityType(.stepCount)])
        let app = UICommandTests.AuthorizedApp(store: store)
        guard try await app.stepCount() > 0 else { throw ServeCommandTests.TestFailure("the app reads no steps before the revocation") }
        return app
    }
}
