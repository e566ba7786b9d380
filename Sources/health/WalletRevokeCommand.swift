import ArgumentParser
import FhirBlocksClient

/// `health wallet revoke --server URL --identity FILE --from-grantee CSI`.
struct WalletRevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke every permission this wallet granted to one csi; prints the revoked permission ids.")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption

    @Option(help: ArgumentHelp("The grantee whose permissions are revoked.", valueName: "CSI"))
    var fromGrantee: String

    func run() async throws {
        let me = try identity.load()
        let grantee = try FhirBlocksCLI.guid(fromGrantee, option: "--from-grantee")
        let ids = try await server.withClient { client in
            try await WalletClient(client: client, identity: me).revoke(grantee: grantee)
        }
        for id in ids { print(id) }
    }
}
