import ArgumentParser
import FhirBlocksClient

/// `health wallet register --server URL --identity FILE [--first-name …] [--last-name …] [--birth-date …] [--gender …]`.
struct WalletRegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register a new wallet (org.fhirblocks.csa) with the patient's public claims; save its identity to FILE (mode 0600).")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption

    @Option(help: "The patient's first name.") var firstName = ""
    @Option(help: "The patient's middle name.") var middleName = ""
    @Option(help: "The patient's last name.") var lastName = ""
    @Option(help: ArgumentHelp("The patient's date of birth.", valueName: "YYYY-MM-DD")) var birthDate = ""
    @Option(help: "The patient's gender.") var gender = ""

    func run() async throws {
        try identity.requireAbsent()
        let claims = PatientClaims(dateOfBirth: birthDate, firstName: firstName, middleName: middleName, lastName: lastName, gender: gender)
        let wallet = try await server.withClient { client in try await WalletClient.register(client: client, claims: claims) }
        try identity.save(wallet.identity)
        print(wallet.identity.csiGuid)
    }
}
