import ArgumentParser
import FhirBlocks
import FhirBlocksClient

/// The token options of `app token` and `app read`.
struct AppTokenOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The scope to ask for, e.g. \"patient/Patient.read conf/V\".", valueName: "SCOPE"))
    var scope: String

    @Option(help: ArgumentHelp("Whose data: a wallet's csiGuid (needed when several wallets granted the app).", valueName: "CSI"))
    var wallet: String?

    @Flag(help: "Use the token endpoint (client_credentials) instead of VACA (vaca/auth then vaca/access).")
    var clientCredentials = false

    /// Gets a token for the app.
    func token(app: AppClient) async throws -> TokenResponse {
        let target = try wallet.map { try FhirBlocksCLI.guid($0, option: "--wallet") }
        if clientCredentials { return try await app.clientCredentialsToken(scope: scope, wallet: target) }
        return try await app.token(scope: scope, wallet: target)
    }

    /// Checks the options before any request.
    func check() throws {
        guard !scope.trimmingCharacters(in: .whitespaces).isEmpty else { throw UsageError("--scope is empty") }
        if let wallet { _ = try FhirBlocksCLI.guid(wallet, option: "--wallet") }
    }
}
