import ArgumentParser
import FhirBlocksClient

/// `health wallet decline CODE --server URL --identity FILE`.
struct WalletDeclineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decline",
        abstract: "Decline an app's SMART authorization request by the code its page shows.",
        discussion: """
            The app's page then returns it to the app with error=access_denied. Exit status: 0 declined, 1 refused by \
            the server (unknown or expired code, decided by another wallet), 2 usage or I/O errors.
            """)

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption

    @Argument(help: ArgumentHelp("The code the app's authorization page shows (e.g. BCDF-GHJK).", valueName: "CODE"))
    var code: String

    func run() async throws {
        let me = try identity.load()
        _ = try await server.withClient { client in
            try await WalletClient(client: client, identity: me).decline(userCode: code)
        }
        print("declined")
    }
}
