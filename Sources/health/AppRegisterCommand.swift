import ArgumentParser
import FhirBlocksClient

/// `health app register --server URL --identity FILE`.
struct AppRegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register a new app (org.fhirblocks.dapp, empty claims); save its identity to FILE (mode 0600) and print its csiGuid.")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption

    func run() async throws {
        try identity.requireAbsent()
        let app = try await server.withClient { client in try await AppClient.register(client: client) }
        try identity.save(app.identity)
        print(app.identity.csiGuid)
    }
}
