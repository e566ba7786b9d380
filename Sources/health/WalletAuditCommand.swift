import ArgumentParser
import FHIRCore
import FhirBlocksClient
import Foundation
import HealthPresentation

/// `health wallet audit --server URL --identity FILE [--json]`.
struct WalletAuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show who did what with the patient's data (the server's AuditEvents about this wallet).",
        discussion: """
            Each request for one of your shared links is a line in words: when, who (the name the \
            recipient gave), and whether they opened the link or why they were refused.
            """)

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
        let formatter = HealthFormatter()
        for event in events { print(Self.line(event, formatter: formatter)) }
    }

    /// `recorded action subtype outcome who → what, …` (a Bulk Data export with its counts,
    /// `(bulk-export Observation=3 Patient=1)`); a shared link request in words.
    static func line(_ event: JSONObject, formatter: HealthFormatter) -> String {
        let summary = AuditEventSummary(event)
        if summary.isSharedLinkAccess { return linkLine(summary, formatter: formatter) }
        let outcome = summary.outcome.map { $0 == "0" ? "ok" : "failed(\($0))" } ?? "?"
        return "\(summary.recorded ?? "?") \(summary.action ?? "?") \(summary.subtype ?? "?") \(outcome) \(summary.who ?? "?")"
            + (summary.what.isEmpty ? "" : " → " + summary.what.joined(separator: ", "))
            + (summary.outcomeDescription.map { $0.hasPrefix("bulk-export ") ? " (\($0))" : "" } ?? "")
    }

    /// `2026-11-29 07:05 UTC  Dr. Lee opened the link (shared link AbCdEfGh…)`, or `… was
    /// refused: wrong passcode (…)`: when, the recipient's name, the outcome in words.
    static func linkLine(_ summary: AuditEventSummary, formatter: HealthFormatter) -> String {
        let when = summary.recorded.flatMap(date).map(formatter.date) ?? summary.recorded ?? "at an unknown time"
        return "\(when)  \(summary.sharedLinkAccessWords ?? "a shared link request")"
    }

    /// An AuditEvent's `recorded` instant (with or without fractional seconds).
    static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))) ?? (try? Date(text, strategy: .iso8601))
    }
}
