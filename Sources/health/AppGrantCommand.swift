import ArgumentParser
import FhirBlocksClient

/// `health app grant --server URL --identity FILE --to CSI… --resource … --access … --confidentiality … [--sensitivity …]… --from … --until …`.
struct AppGrantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Pass a permission the app holds on to providers or caregivers (never more than the app holds); prints the permission ids.")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption
    @OptionGroup var grant: FhirBlocksGrantOptions

    func run() async throws {
        let (grantees, scope, window) = try grant.grant()
        let me = try identity.load()
        let ids = try await server.withClient { client in
            try await AppClient(client: client, identity: me).grant(to: grantees, scope: scope, window: window)
        }
        for id in ids { print(id) }
    }
}
