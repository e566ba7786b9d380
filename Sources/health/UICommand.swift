import ArgumentParser
import Foundation
import HealthWebApp
import Logging

/// `health ui`: the Health web page on 127.0.0.1 over the store (the `health store` options
/// choose which), reached through a printed URL with a one-time secret.
struct UICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "Serve the Health web page on 127.0.0.1 (stops on Ctrl-C or SIGTERM).",
        discussion: """
            The first line on standard output is "open <URL>": the URL carries a one-time secret that the browser trades \
            for a session cookie. Every asset is served by this binary; nothing is fetched from elsewhere.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The port on 127.0.0.1 (0 picks a free one).") var port = 8787
    @Flag(help: "Open the URL in the default browser (xdg-open).") var open = false
    /// How cards are verified (added ones, and stored ones on the Health cards page): the same options as `health shc verify`.
    @OptionGroup var verification: CardVerifierOptions

    func run() async throws {
        guard (0...65535).contains(port) else { throw UsageError("--port must be 0…65535") }
        let store = try storeOptions.openStore()
        let (verifier, https) = try verification.makeVerifier()
        let webApp = try HealthWebApp(store: store, verifier: verifier, verifiesAsOfNow: verification.at == nil)
        var logger = Logger(label: "health-ui")
        logger.logLevel = .warning
        let open = self.open
        do {
            try await webApp.run(port: port, logger: logger) { bound in
                let url = webApp.startURL(port: bound)
                FileHandle.standardOutput.write(Data("open \(url)\n".utf8))
                if open { Self.openInBrowser(url) }
            }
        } catch {
            await https.shutdown()
            throw error
        }
        await https.shutdown()
    }

    /// Starts `xdg-open` (or `open` on macOS) with the URL; a missing opener is reported, not fatal.
    static func openInBrowser(_ url: String) {
        let process = Process()
        #if os(macOS)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/open")
        #else
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open"]
        #endif
        process.arguments = (process.arguments ?? []) + [url]
        do { try process.run() } catch { printError("could not open a browser (\(error)); open the URL above yourself") }
    }
}
