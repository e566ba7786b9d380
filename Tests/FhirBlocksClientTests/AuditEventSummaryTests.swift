import ExactJSON
import FhirBlocksClient
import Testing

@Suite("AuditEvent summaries")
struct AuditEventSummaryTests {
    @Test func theRequestorAndTheEntitiesAreRead() throws {
        let event = try #require(try JSONParser.parse(Array("""
            {"resourceType":"AuditEvent","recorded":"2026-11-26T15:51:14.835Z","action":"R",
             "subtype":[{"code":"fhir-access"}],"outcome":"0",
             "agent":[{"who":{"identifier":{"value":"patient-csi"}},"requestor":false},
                      {"who":{"identifier":{"value":"app-csi"}},"requestor":true}],
             "entity":[{"what":{"reference":"Patient/alice"}},{"what":{"display":"the log"}},{"what":{}}]}
            """.utf8)).objectValue)
        let summary = AuditEventSummary(event)
        #expect(summary.recorded == "2026-11-26T15:51:14.835Z")
        #expect(summary.action == "R" && summary.subtype == "fhir-access")
        #expect(summary.succeeded)
        #expect(summary.who == "app-csi")
        #expect(summary.what == ["Patient/alice", "the log", "?"])
    }

    @Test func missingPartsAreNil() throws {
        let event = try #require(try JSONParser.parse(Array(#"{"resourceType":"AuditEvent","outcome":"8","agent":[{"requestor":false}]}"#.utf8)).objectValue)
        let summary = AuditEventSummary(event)
        #expect(summary.recorded == nil && summary.action == nil && summary.subtype == nil && summary.who == nil)
        #expect(summary.what.isEmpty)
        #expect(!summary.succeeded)
    }
}
