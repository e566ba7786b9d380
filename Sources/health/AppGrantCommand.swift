import ArgumentParser
import FhirBlocks
import FhirBlocksClient

/// `health app grant --server URL --identity FILE --patient CSI --to CSI… --resource … --access …
/// --confidentiality … [--sensitivity …]… --from … --until …`.
struct AppGrantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Pass a permission the app holds on to providers or caregivers (never more than the app holds); prints the permission ids.")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption
    @OptionGroup var grant: FhirBlocksGrantOptions
    @Option(help: ArgumentHelp("Whose data is passed on: the patient's wallet csiGuid (the server needs it in strict mode).", valueName: "CSI"))
    var patient: String


    func run() async throws {
        let (grantees, scope, window) = try grant.grant()
        guard let patient = CsiGuid(patient) else { throw UsageError("--patient must be a csiGuid (a 36-character UUID)") }
        let me = try identity.load()
        let ids = try await server.withClient { client in
            try await AppClient(client: client, identity: me).grant(to: grantees, scope: scope, window: window, patient: patient)
        }
        for id in ids { print(id) }
    }
}
