import ArgumentParser

/// `health app …`: an app (DApp) on a FhirBlocks server. Exit codes as for `health wallet`.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Act as an app on a FhirBlocks server: register, read a wallet's claims, pass permissions on, get tokens, read FHIR data.",
        subcommands: [AppRegisterCommand.self, AppClaimsCommand.self, AppGrantCommand.self, AppTokenCommand.self, AppReadCommand.self])
}
