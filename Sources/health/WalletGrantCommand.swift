import ArgumentParser
import FhirBlocksClient

/// `health wallet grant --server URL --identity FILE --to CSI… --resource TYPE|* --access …
/// --confidentiality … [--sensitivity CODE]… --from … --until …`.
struct WalletGrantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Grant one or more csis a HEART-scoped permission over the patient's data for a time window; prints the permission ids.")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption
    @OptionGroup var grant: FhirBlocksGrantOptions

    func run() async throws {
        let (grantees, scope, window) = try grant.grant()
        let me = try identity.load()
        let ids = try await server.withClient { client in
            try await WalletClient(client: client, identity: me).grant(to: grantees, scope: scope, window: window)
        }
        for id in ids { print(id) }
    }
}
