import ArgumentParser
import FhirBlocksClient

/// `health wallet approve CODE [--scope S…] [--until ISO8601] --server URL --identity FILE`.
struct WalletApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Approve an app's SMART authorization request by the code its page shows; "
            + "prints the granted scope, the end of the window and the permission ids.",
        discussion: """
            Grants the scopes the app asked for, or only those of them also given with --scope, until --until (the \
            server's default, 30 days, when absent). The app's page then returns it to the app with an authorization code. \
            Exit status: 0 approved, 1 refused by the server (unknown or expired code, decided by another wallet, nothing \
            of the requested scope chosen), 2 usage or I/O errors.
            """)

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption

    @Argument(help: ArgumentHelp("The code the app's authorization page shows (e.g. BCDF-GHJK).", valueName: "CODE"))
    var code: String

    @Option(help: ArgumentHelp("A scope to allow, e.g. patient/Observation.rs or offline_access (repeat for several; default: all requested).",
                               valueName: "SCOPE"))
    var scope: [String] = []

    @Option(help: ArgumentHelp("End of the approval, exclusive (ISO 8601).", valueName: "ISO8601"))
    var until: String?

    func run() async throws {
        let end = try until.map { FhirBlocksCLI.timestamp(try parseInstant($0)) }
        for item in scope where item.isEmpty || item.contains(" ") || item.contains("|") {
            throw UsageError("--scope: give one scope per option, without spaces or '|'")
        }
        let me = try identity.load()
        let decision = try await server.withClient { client in
            try await WalletClient(client: client, identity: me).approve(userCode: code, scopes: scope, until: end)
        }
        print("approved \(decision.scope)")
        print("until \(decision.endTime)")
        for id in decision.permissionIds { print(id) }
    }
}
