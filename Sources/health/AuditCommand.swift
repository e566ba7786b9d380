import ArgumentParser

/// `health audit …`: the FhirBlocks server's tamper-evident audit log.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Check a FhirBlocks audit log (exit codes: 0 intact, 1 tampered, 2 unreachable or usage error).",
        subcommands: [AuditVerifyCommand.self, AuditWitnessCommand.self])
}
