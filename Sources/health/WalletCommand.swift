import ArgumentParser

/// `health wallet …`: the patient's wallet on a FhirBlocks server.
///
/// Exit codes (all `wallet`, `app` and `audit` commands): 0 success, 1 the server refused (or a
/// verification failed), 2 usage or I/O errors (including an unreachable server).
struct WalletCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet",
        abstract: "Act as a patient's wallet on a FhirBlocks server: register, grant, revoke, approve or decline apps, list, store FHIR data, "
            + "read the audit trail.",
        subcommands: [WalletRegisterCommand.self, WalletGrantCommand.self, WalletRevokeCommand.self, WalletApproveCommand.self, WalletDeclineCommand.self,
                      WalletPermissionsCommand.self,
                      WalletPutCommand.self, WalletAuditCommand.self])
}
