import ArgumentParser
import FhirBlocksClient

/// `health app read --server URL --identity FILE --scope "…" [--wallet CSI] PATH`.
struct AppReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Get a token, then GET /fhir/PATH with it and print the JSON (a resource the token may not see answers 404).")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption
    @OptionGroup var tokenOptions: AppTokenOptions

    @Argument(help: "The path below /fhir, e.g. Patient/123 or Observation?code=8867-4.")
    var path: String

    func run() async throws {
        try tokenOptions.check()
        let me = try identity.load()
        let body = try await server.withClient { client in
            let app = AppClient(client: client, identity: me)
            let token = try await tokenOptions.token(app: app)
            return try await app.fhir(token: token).get(path)
        }
        print(FhirBlocksCLI.pretty(body))
    }
}
