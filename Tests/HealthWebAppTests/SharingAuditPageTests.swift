import ExactJSON
import FhirBlocks
import Foundation
@testable import HealthWebApp
import Testing
import TestSupport

/// The Sharing page's "who saw my data" reads one page of the audit log, newest first, and
/// links the older page by the server's cursor: the search it sends, how it reads a page (at
/// most one page whatever the server sends, the `next` link's cursor, malformed links ignored),
/// and the links it draws. The page against a real server on loopback is `UIWalletTests`
/// (healthTests); the server's paging is `AuditEventPagingTests` (FhirBlocksServerTests).
@Suite("Sharing page: who saw my data, one page at a time")
struct SharingAuditPageTests {
    static let wallet = "0b5e1c2a-7d1e-4a51-9b0c-5a0f3e6d2c11"
    static let reader = "5c0ffee0-1234-4abc-8def-0123456789ab"

    /// A searchset of `count` events by `reader`, recorded a second apart (in a random order),
    /// with a `next` link whose URL is `next` when given.
    static func bundle(count: Int, next: String?, generator: inout SplitMix64) throws -> JSONValue {
        var seconds = Array(0..<count)
        for index in seconds.indices.reversed() where index > 0 { seconds.swapAt(index, generator.below(index + 1)) }
        let entries = seconds.map { second in
            let recorded = String(format: "2026-11-29T03:%02d:%02d.000Z", second / 60, second % 60)
            return #"{"resource":{"resourceType":"AuditEvent","id":"log-\#(second)","recorded":"\#(recorded)","action":"R","outcome":"0","#
                + #""agent":[{"requestor":true,"who":{"identifier":{"value":"\#(reader)"}}}],"entity":[{"what":{"reference":"Patient/p"}}]}}"#
        }
        let links = next.map { #","link":[{"relation":"self","url":"https://x/fhir/AuditEvent?_count=50"},{"relation":"next","url":"\#($0)"}]"# } ?? ""
        let text = #"{"resourceType":"Bundle","type":"searchset"\#(links),"entry":[\#(entries.joined(separator: ","))]}"#
        return try JSONParser.parse(Data(text.utf8))
    }

    @Test("the search asks for one page without the wallet's own entries, from the cursor when given")
    func searchParameters() throws {
        let csi = try #require(CsiGuid(Self.wallet))
        let newest = SharingWallet.auditPageParameters(excluding: csi, cursor: nil)
        #expect(newest.map(\.0) == ["_count", "agent:not"])
        #expect(newest.map(\.1) == [String(SharingWallet.auditPageSize), csi.description])
        let older = SharingWallet.auditPageParameters(excluding: csi, cursor: 1234)
        #expect(older.last?.0 == "_cursor" && older.last?.1 == "1234")
    }

    @Test("a page is at most fifty events, newest first, with the next link's cursor; a malformed link gives none")
    func readsOnePage() throws {
        var generator = SplitMix64(seed: 0x5A4E_A034)
        // A server that ignores _count (an older one) and sends more: the newest fifty are kept.
        let (events, older) = SharingWallet.auditPage(
            try Self.bundle(count: 80, next: "https://x/fhir/AuditEvent?_count=50&_cursor=917", generator: &generator))
        #expect(events.count == SharingWallet.auditPageSize)
        #expect(events.map(\.recorded) == events.map(\.recorded).sorted(by: >))
        #expect(events.first?.recorded == "2026-11-29T03:01:19.000Z")
        #expect(older == 917)
        for bad in ["https://x/fhir/AuditEvent?_count=50&_cursor=-3", "https://x/fhir/AuditEvent?_cursor=abc", "not a url %%", "https://x/fhir/AuditEvent"] {
            #expect(SharingWallet.auditPage(try Self.bundle(count: 2, next: bad, generator: &generator)).older == nil, "\(bad)")
        }
        #expect(SharingWallet.auditPage(try Self.bundle(count: 2, next: nil, generator: &generator)).older == nil)
        #expect(SharingWallet.auditPage(.null).events.isEmpty)
    }

    @Test("the section links the older page by its cursor, and an older page back to the newest")
    func links() throws {
        var generator = SplitMix64(seed: 0x11_4C34)
        let view = SharingWalletView(pages: try PageRenderer())
        let (events, older) = SharingWallet.auditPage(try Self.bundle(count: 3, next: "https://x/fhir/AuditEvent?_count=50&_cursor=42", generator: &generator))
        func render(_ events: [SharingAuditEvent], older: Int?, cursor: Int?) -> String {
            view.render(csi: Self.wallet, SharingWallet.Snapshot(grantedByMe: [], givenToMe: [], events: events, olderEvents: older, eventsCursor: cursor,
                                                                 verification: .failure(SharingWalletProblem("not checked here"))),
                        csrf: "t", today: "2026-11-29", nextYear: "2027-11-29")
        }
        let newest = render(events, older: older, cursor: nil)
        #expect(newest.contains("<a href=\"/sharing?auditBefore=42\">Older entries</a>"))
        #expect(!newest.contains("Newest entries"))
        #expect(newest.components(separatedBy: "<td><code>\(Self.reader)</code></td>").count == 4)
        let middle = render(events, older: 7, cursor: 42)
        #expect(middle.contains("<a href=\"/sharing?auditBefore=7\">Older entries</a>"))
        #expect(middle.contains("<a href=\"/sharing\">Newest entries</a>"))
        let last = render([], older: nil, cursor: 7)
        #expect(last.contains("No older entries.") && !last.contains("Older entries</a>"))
        let empty = render([], older: nil, cursor: nil)
        #expect(empty.contains("No one else has used your data."))
        // A stretch of the log with only the wallet's own entries: said so, and the older page linked.
        let stretch = render([], older: 3, cursor: nil)
        #expect(stretch.contains("No one else&#39;s actions in this part of the log.") || stretch.contains("No one else's actions in this part of the log."))
    }
}
