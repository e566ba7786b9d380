import ArgumentParser
import FhirBlocksClient

/// `health app token --server URL --identity FILE --scope "…" [--wallet CSI] [--client-credentials] [--json]`.
struct AppTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Get an access token through VACA (vaca/auth, then vaca/access) and print it.")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption
    @OptionGroup var tokenOptions: AppTokenOptions

    @Flag(help: "Print the RFC 6749 token JSON.")
    var json = false

    func run() async throws {
        try tokenOptions.check()
        let me = try identity.load()
        let token = try await server.withClient { client in
            try await tokenOptions.token(app: AppClient(client: client, identity: me))
        }
        if json {
            print(FhirBlocksCLI.pretty(token.json))
        } else {
            print("access_token: \(token.accessToken)")
            print("token_type: \(token.tokenType)")
            print("expires_in: \(token.expiresIn)")
            print("scope: \(token.scope)")
            if let patient = token.patient { print("patient: \(patient)") }
        }
    }
}
