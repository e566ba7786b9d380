import FHIRCore
import FhirBlocks
@testable import health
import HealthPresentation
import Testing

/// `health wallet audit` prints a Bulk Data export's counts (the audit entry's reason, the
/// AuditEvent's `outcomeDesc`), and nothing of other entries' reasons.
@Suite struct WalletAuditExportTests {
    @Test func anExportLinePrintsItsCounts() throws {
        let recorded = try #require(Timestamp(wireText: "2026-11-29T10:00:00.000Z"))
        let export = AuditEntry(type: .fhirAccess, recorded: recorded, agent: "app", patient: "p", resources: ["Condition", "Observation"],
                                reason: "bulk-export Condition=1 Observation=3", action: "R")
        let event = try #require(export.auditEvent(observer: "server").objectValue)
        #expect(event["outcomeDesc"] == .string("bulk-export Condition=1 Observation=3"))
        let line = WalletAuditCommand.line(event, formatter: HealthFormatter())
        #expect(line.hasSuffix("(bulk-export Condition=1 Observation=3)"), "\(line)")
        // Another access's reason (a refused search) stays out of the AuditEvent and the line.
        let search = AuditEntry(type: .fhirAccess, recorded: recorded, outcome: .minorFailure, agent: "app", patient: "p", resources: ["Observation"],
                                reason: "invalid_search", action: "R")
        let searchEvent = try #require(search.auditEvent(observer: "server").objectValue)
        #expect(searchEvent["outcomeDesc"] == nil)
        #expect(!WalletAuditCommand.line(searchEvent, formatter: HealthFormatter()).contains("invalid_search"))
    }
}
