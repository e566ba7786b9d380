import FhirBlocksClient
import Foundation
@testable import HealthWebApp
import OpenHealthKit
import SmartHealthLinks
import Testing

/// The Share page's single-record picker pages a category's records by keyset (every record can
/// be chosen, however many there are), and each link's expiry is said in words with the dates
/// every page writes.
@Suite("Share page: the record picker's pages and the links' expiry")
struct SharePickerAndExpiryTests {
    static let start = Date(timeIntervalSince1970: 1_600_000_000)

    static func condition(_ index: Int, at date: Date) -> HKClinicalRecord {
        let json = #"{"resourceType":"Condition","id":"c\#(index)","code":{"text":"Condition \#(index)"},"recordedDate":"2020-09-13"}"#
        return HKClinicalRecord(type: HKClinicalType(.conditionRecord), startDate: date, endDate: date, displayName: "Condition \(index)",
                                fhirResource: HKFHIRResource(resourceType: .condition, identifier: "c\(index)", data: Data(json.utf8),
                                                             sourceURL: nil, fhirVersion: .primaryR4()))
    }

    /// 130 conditions an hour apart, seven of them (around the first page's end) at one instant,
    /// and one allergy.
    static func fill(_ store: HKHealthStore) async throws -> [HKClinicalRecord] {
        var records: [HKClinicalRecord] = []
        for index in 0..<130 {
            // Newest first, 45 conditions then seven (78...84) at one start: the first page's
            // boundary falls among them, and the page takes all seven (52 records).
            let hours = (78...84).contains(index) ? 78 : index
            records.append(condition(index, at: start.addingTimeInterval(Double(hours) * 3600)))
        }
        let allergyJSON = #"{"resourceType":"AllergyIntolerance","id":"a1","code":{"text":"Peanut allergy"}}"#
        records.append(HKClinicalRecord(type: HKClinicalType(.allergyRecord), startDate: start, endDate: start, displayName: "Peanut allergy",
                                        fhirResource: HKFHIRResource(resourceType: .allergyIntolerance, identifier: "a1",
                                                                     data: Data(allergyJSON.utf8), sourceURL: nil, fhirVersion: .primaryR4())))
        try await store.saveHealthRecords(records, source: HKSource(name: "Example Clinic", bundleIdentifier: "org.example.clinic"))
        return records
    }

    @Test("walking the picker's pages of a category lists each of its records once, newest first, 50 a page (ties kept together)")
    func pagesListEveryRecordOnce() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let records = try await Self.fill(fixture.store)
        let conditions = records.filter { $0.clinicalType == HKClinicalType(.conditionRecord) }
        var seen: [UUID] = []
        var before: Date?
        var pages = 0
        repeat {
            let page = try await ShareRecordPicks.read(HKClinicalType(.conditionRecord), before: before, from: fixture.store)
            pages += 1
            #expect(!page.records.isEmpty && page.records.count <= ShareRecordPicks.pageSize + 6)
            #expect(page.records.map(\.startDate) == page.records.map(\.startDate).sorted(by: >))
            if let before { #expect(page.records.allSatisfy { $0.startDate < before }) }
            seen += page.records.map(\.uuid)
            before = page.next
            try #require(pages < 10, "the pages do not end")
        } while before != nil
        #expect(seen.count == conditions.count && Set(seen) == Set(conditions.map(\.uuid)))
        #expect(pages == 3)
        // A smaller page size splits ties the same way: each record once.
        var small: [UUID] = []
        before = nil
        repeat {
            let page = try await ShareRecordPicks.read(HKClinicalType(.conditionRecord), before: before, from: fixture.store, pageSize: 4)
            small += page.records.map(\.uuid)
            before = page.next
        } while before != nil
        #expect(small.count == conditions.count && Set(small) == Set(conditions.map(\.uuid)))
    }

    @Test("the page links a category's older records, its pages link each other, and every record's checkbox is on one of them")
    func pickerLinksOlderPages() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let records = try await Self.fill(fixture.store)
        let text = try await fixture.webApp.sampleText()
        let view = ShareView(text: text)
        func render(_ picks: ShareView.RecordPicks) -> String {
            view.index(connected: true, categories: [], records: picks, cards: [], cardCount: 0, links: .success([]), csrf: "t")
        }
        // The newest page: 50 conditions, the allergy, and a link to the older conditions only.
        let newest = try await fixture.webApp.shareRecordPicks(nil, text: text)
        #expect(newest.records.count == 53 && newest.older.map(\.name) == ["Conditions"], "\(newest.records.count) \(newest.older)")
        let first = render(newest)
        #expect(first.contains("Peanut allergy"))
        let olderLink = try #require(newest.older.first?.address)
        #expect(first.contains("href=\"\(olderLink.replacingOccurrences(of: "&", with: "&amp;"))\"") || first.contains("href=\"\(olderLink)\""))
        var chosen = Set(newest.records.map(\.id))
        // Following the links reaches every condition.
        var address: String? = olderLink
        var followed = 0
        while let next = address {
            let query = try #require(URLComponents(string: next)?.queryItems)
            let picking = try #require(ShareRecordPicks.request(pick: query.first { $0.name == "pick" }?.value,
                                                                before: query.first { $0.name == "before" }?.value))
            let page = try await fixture.webApp.shareRecordPicks(picking, text: text)
            let html = render(page)
            #expect(html.contains("<details class=\"picks\" id=\"picks\" open>"))
            #expect(html.contains("← Newest Conditions records"))
            #expect(page.records.allSatisfy { $0.detail.hasPrefix("Conditions, ") })
            for pick in page.records { #expect(html.contains("name=\"record-\(pick.id)\"")) }
            chosen.formUnion(page.records.map(\.id))
            address = page.paging?.older
            followed += 1
            try #require(followed < 10)
        }
        #expect(chosen == Set(records.map(\.uuid.uuidString)))
        // Addresses that are not a category or a cursor fall back to the newest records.
        #expect(ShareRecordPicks.request(pick: "HKClinicalTypeIdentifierNope", before: nil) == nil)
        #expect(ShareRecordPicks.request(pick: HKClinicalType(.conditionRecord).identifier, before: "nan") == nil)
        #expect(ShareRecordPicks.request(pick: HKClinicalType(.conditionRecord).identifier, before: "1e300") == nil)
        #expect(ShareRecordPicks.request(pick: nil, before: "5") == nil)
        // The route answers those addresses (without a wallet the form is not shown).
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            for path in ["/share?pick=" + HKClinicalType(.conditionRecord).identifier + "&before=600000000", "/share?pick=x&before=y"] {
                #expect(try await client.send(.get, path, cookie: cookie).status == .ok, "\(path)")
            }
        }
    }

    @Test("each link's expiry is said in words, its date as every page writes dates")
    func expiryInWords() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let text = try await fixture.webApp.sampleText()
        let view = ShareView(text: text)
        let date = Date(timeIntervalSince1970: 1_767_225_600) // 2026-01-01 00:00 UTC
        #expect(view.expiry(date, expired: false) == "expires on " + text.date(date))
        #expect(view.expiry(date, expired: false) == "expires on 2026-01-01 00:00 UTC")
        #expect(view.expiry(date, expired: true) == "expired on 2026-01-01 00:00 UTC")
        #expect(view.expiry(nil, expired: false) == "does not expire")
        let links = [
            SharedLinkRecord(id: "a", manifestURL: "https://x/shl/a", flags: "P", label: "Soon", expires: date, created: date.addingTimeInterval(-86_400),
                             status: "active", remainingAttempts: 10, fileCount: 1, accesses: []),
            SharedLinkRecord(id: "b", manifestURL: "https://x/shl/b", flags: "", label: "Gone", expires: date.addingTimeInterval(-3_600),
                             created: date.addingTimeInterval(-86_400), status: "expired", remainingAttempts: nil, fileCount: 1, accesses: []),
            SharedLinkRecord(id: "c", manifestURL: "https://x/shl/c", flags: "L", label: "Always", expires: nil, created: date,
                             status: "active", remainingAttempts: nil, fileCount: 1, accesses: []),
        ]
        let html = view.index(connected: true, categories: [], records: ShareView.RecordPicks(records: [], older: [], paging: nil), cards: [],
                              cardCount: 0, links: .success(links), csrf: "t")
        #expect(html.contains("<td>expires on 2026-01-01 00:00 UTC</td>"), "\(html)")
        #expect(html.contains("<td>expired on 2025-12-31 23:00 UTC</td>"))
        #expect(html.contains("<td>does not expire</td>"))
    }

    @Test("a previewed link says when it expires, in words")
    func previewSaysTheExpiry() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await SharePageTests.withLinkServer { server, key in
            let exp = Int64(WebTestFixture.now.timeIntervalSince1970) + 7 * 86_400
            let link = SHLink.link(try SHLinkPayload(url: server.base.withLock { $0 } + "/shl/" + SHLink.newManifestID(), key: key,
                                                     expiration: exp, flags: [.passcode], label: "For Dr. B"))
            try await fixture.withClient { client in
                let cookie = try await client.startSession()
                let form = MultipartBody().field("csrf", client.csrf(cookie)).field("link", link).field("passcode", "2468")
                    .field("recipient", "Dr. B").closed
                let page = try await client.send(.post, "/share/open", cookie: cookie, multipart: form)
                #expect(page.status == .ok)
                #expect(page.body.contains("<p>The link expires on 2025-12-03 12:00 UTC.</p>"), "\(page.body)")
            }
        }
    }
}
