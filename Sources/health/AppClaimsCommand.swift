import ArgumentParser
import FHIRCore
import FhirBlocks
import FhirBlocksClient

/// `health app claims --server URL --identity FILE --wallet CSI [--json]`.
struct AppClaimsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "claims",
        abstract: "Print a wallet's public claims (the server answers only when a permission links the app and the wallet).")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption

    @Option(help: ArgumentHelp("The wallet's csiGuid.", valueName: "CSI"))
    var wallet: String

    @Flag(help: "Print {\"claims\": [...]} as JSON.")
    var json = false

    func run() async throws {
        let me = try identity.load()
        let target = try FhirBlocksCLI.guid(wallet, option: "--wallet")
        let claims = try await server.withClient { client in
            try await AppClient(client: client, identity: me).publicClaims(of: target)
        }
        if json {
            print(FhirBlocksCLI.pretty(PublicClaimsResponse(claims: claims).json))
        } else {
            for claim in claims { print("\(claim.key): \(claim.value)") }
        }
    }
}
