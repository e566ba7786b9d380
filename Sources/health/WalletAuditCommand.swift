import ArgumentParser
import FHIRCore
import FhirBlocksClient

/// `health wallet audit --server URL --identity FILE [--json]`.
struct WalletAuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show who did what with the patient's data (the server's AuditEvents about this wallet).")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption

    @Flag(help: "Print the searchset Bundle of AuditEvents as JSON.")
    var json = false

    func run() async throws {
        let me = try identity.load()
        let bundle = try await server.withClient { client in
            try await WalletClient(client: client, identity: me).auditEvents()
        }
        if json {
            print(FhirBlocksCLI.pretty(bundle))
            return
        }
        let events = (bundle.objectValue?["entry"]?.arrayValue ?? []).compactMap { $0.objectValue?["resource"]?.objectValue }
        print("\(events.count) audit event\(events.count == 1 ? "" : "s")")
        for event in events { print(Self.line(event)) }
    }

    /// `recorded action subtype outcome who → what, …`.
    static func line(_ event: JSONObject) -> String {
        let summary = AuditEventSummary(event)
        let outcome = summary.outcome.map { $0 == "0" ? "ok" : "failed(\($0))" } ?? "?"
        return "\(summary.recorded ?? "?") \(summary.action ?? "?") \(summary.subtype ?? "?") \(outcome) \(summary.who ?? "?")"
            + (summary.what.isEmpty ? "" : " → " + summary.what.joined(separator: ", "))
    }
}
