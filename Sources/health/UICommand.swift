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
    @Option(help: ArgumentHelp("With --server: the wallet's identity file (as for health wallet); "
                                   + "the Sharing page shows and changes its permissions and audit log.",
                               valueName: "FILE"))
    var identity: String?
    @Option(help: ArgumentHelp("With --identity: the FhirBlocks server's base URL (its --public-url).", valueName: "URL"))
    var server: String?

    func run() async throws {
        // As `health serve`: a closed standard output never ends the server.
        signal(SIGPIPE, SIG_IGN)
        guard (0...65535).contains(port) else { throw UsageError("--port must be 0…65535") }
        guard (identity == nil) == (server == nil) else { throw UsageError("--identity and --server go together") }
        let store = try storeOptions.openStore()
        // The issuers whose keys are kept beside the store (a kept `health demo`'s), then --issuer.
        let (verifier, https) = try CardVerifierOptions.makeVerifier(
            issuers: KeptIssuers.issuerArguments(beside: store) + verification.issuers, trustDirectory: verification.trustDirectory,
            at: verification.at, allowPrivateIssuers: verification.allowPrivateIssuers)
        do {
            if let identity, let server {
                // The same options, checks and client as the health wallet commands.
                let me = try FhirBlocksIdentityOption.parse(["--identity", identity]).load()
                try await FhirBlocksServerOption.parse(["--server", server]).withClient { client in
                    try await serve(try HealthWebApp(store: store, verifier: verifier, verifiesAsOfNow: verification.at == nil,
                                                     wallet: SharingWallet(client: client, identity: me)))
                }
            } else {
                try await serve(try HealthWebApp(store: store, verifier: verifier, verifiesAsOfNow: verification.at == nil))
            }
        } catch {
            await https.shutdown()
            throw error
        }
        await https.shutdown()
    }

    private func serve(_ webApp: HealthWebApp) async throws {
        var logger = Logger(label: "health-ui")
        logger.logLevel = .warning
        let open = self.open
        try await webApp.run(port: port, logger: logger) { bound in
            let url = webApp.startURL(port: bound)
            try? FileHandle.standardOutput.write(contentsOf: Data("open \(url)\n".utf8))
            if open { Self.openInBrowser(url) }
        }
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
