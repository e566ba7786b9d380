import Foundation
@testable import HealthWebApp
import OpenHealthKit
import SmartHealthCards
import Testing
import TestSupport

/// The Health cards page reads one page from a cursor (the last shown card's date, and how many
/// of that date were shown), not every card up to the page: following the Older links shows
/// every stored card exactly once, newest first, also when many share one date; a malformed
/// cursor shows the newest cards.
@Suite("Health cards page: keyset paging")
struct CardsKeysetPagingTests {
    typealias IssuerFolder = CardVerdictCacheTests.IssuerFolder

    /// The cards' uuids on a page, in order.
    static func uuids(_ body: String) -> [String] {
        body.components(separatedBy: "<h2 id=\"card-").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// The Older link of a page, unescaped, or nil.
    static func olderLink(_ body: String) -> String? {
        guard let end = body.range(of: "\">Older cards</a>"), let start = body[..<end.lowerBound].range(of: "href=\"", options: .backwards) else {
            return nil
        }
        return String(body[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Cards at `dates` (one per date, repeats allowed), saved in a random order.
    static func store(_ dates: [Date], issuer: IssuerFolder, generator: inout SplitMix64) async throws -> (WebTestFixture, [HKVerifiableClinicalRecord]) {
        let base = try await WebTestFixture.make(days: 1)
        var cards = try dates.map { try issuer.card(nbf: $0) }
        for index in cards.indices.reversed() where index > 0 { cards.swapAt(index, generator.below(index + 1)) }
        try await base.store.saveHealthRecords(cards, source: HKSource(name: "Card import", bundleIdentifier: "org.example.cards"))
        let fixture = try CardVerdictCacheTests.page(base.store, resolver: FolderKeyResolver([CardVerdictCacheTests.issuer: issuer.folder]),
                                                     clock: TestClock(WebTestFixture.now))
        return (fixture, cards)
    }

    @Test("following the Older links shows every card once, newest first, with dates shared across page boundaries")
    func everyCardOnceAcrossPages() async throws {
        let issuer = try IssuerFolder()
        defer { try? FileManager.default.removeItem(at: issuer.folder) }
        var generator = SplitMix64(seed: 0xCA4D_5034)
        // 137 cards: 60 of one date (more than a page), then runs of random lengths of other dates.
        let day = 86_400.0
        var dates = Array(repeating: WebTestFixture.now.addingTimeInterval(-day), count: 60)
        var offset = 2.0
        while dates.count < 137 {
            let run = min(generator.int(1...9), 137 - dates.count)
            dates += Array(repeating: WebTestFixture.now.addingTimeInterval(-day * offset), count: run)
            offset += 1
        }
        let (fixture, cards) = try await Self.store(dates, issuer: issuer, generator: &generator)
        let dateOf = Dictionary(uniqueKeysWithValues: cards.map { ($0.uuid.uuidString, $0.startDate) })
        let pages = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            var pages: [String] = []
            var path: String? = "/cards"
            while let next = path, pages.count < 10 {
                let response = try await client.send(.get, next, cookie: cookie)
                #expect(response.status.code == 200)
                pages.append(response.body)
                path = Self.olderLink(response.body)
            }
            return pages
        }
        #expect(pages.map { Self.uuids($0).count } == [50, 50, 37])
        let shown = pages.flatMap(Self.uuids)
        #expect(Set(shown) == Set(dateOf.keys))
        #expect(shown.count == cards.count)
        let shownDates = shown.compactMap { dateOf[$0] }
        #expect(shownDates == shownDates.sorted(by: >))
        // Every page after the first links back to the newest cards.
        #expect(pages.dropFirst().allSatisfy { $0.contains("<a href=\"/cards\">Newer cards</a>") })
        #expect(!pages[0].contains("Newer cards"))
    }

    @Test("a page from a cursor is the slice of the newest-first list after it, whatever the page's number")
    func cursorPageIsTheSlice() async throws {
        let issuer = try IssuerFolder()
        defer { try? FileManager.default.removeItem(at: issuer.folder) }
        var generator = SplitMix64(seed: 0x5C1C_E034)
        let dates = (0..<120).map { _ in WebTestFixture.now.addingTimeInterval(-3600 * Double(generator.int(1...40))) }
        let (fixture, _) = try await Self.store(dates, issuer: issuer, generator: &generator)
        let view = CardsView(store: fixture.store, pages: try PageRenderer(), text: SampleText(units: [:], calendar: WebTestFixture.calendar))
        let all = try await view.cards()
        var cursor: CardsView.PageCursor?
        var position = 0
        repeat {
            let page = try await view.cards(from: cursor)
            #expect(page.cards.map(\.uuid) == all[position..<min(position + CardsView.pageSize, all.count)].map(\.uuid))
            position += page.cards.count
            #expect(page.hasOlder == (position < all.count))
            cursor = page.older
            if let cursor {
                // The cursor is the last shown card's date and how many of that date were shown so far.
                #expect(cursor.date == all[position - 1].startDate.timeIntervalSinceReferenceDate)
                #expect(cursor.skipped == all[..<position].filter { $0.startDate.timeIntervalSinceReferenceDate == cursor.date }.count)
            }
        } while cursor != nil
        #expect(position == all.count)
    }

    @Test("a malformed or hostile cursor shows the newest cards, never an error")
    func malformedCursor() async throws {
        let issuer = try IssuerFolder()
        defer { try? FileManager.default.removeItem(at: issuer.folder) }
        var generator = SplitMix64(seed: 0xBAD_C034)
        let dates = (0..<3).map { WebTestFixture.now.addingTimeInterval(-3600 * Double($0 + 1)) }
        let (fixture, _) = try await Self.store(dates, issuer: issuer, generator: &generator)
        let queries = ["before=abc", "before=nan&skip=1", "before=inf", "before=1e400", "before=100&skip=-1", "before=100&skip=99999999",
                       "before=100&skip=x", "page=99999999999999999999", "page=-5", "before=&skip=", "skip=3"]
        let bodies = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            var bodies: [(String, Int, String)] = []
            for query in queries {
                let response = try await client.send(.get, "/cards?" + query, cookie: cookie)
                bodies.append((query, Int(response.status.code), response.body))
            }
            return bodies
        }
        for (query, status, body) in bodies {
            #expect(status == 200, "\(query)")
            #expect(Self.uuids(body).count == 3, "\(query)")
        }
    }

    @Test("the cursor's parser never traps and accepts only finite dates and skips in range (random inputs)")
    func cursorParserProperty() {
        var generator = SplitMix64(seed: 0xC0_5E34)
        let alphabet = Array("0123456789.-+eEinfatxNI ".utf8)
        for _ in 0..<5_000 {
            func text() -> String? {
                generator.chance(0.1) ? nil
                    : String(decoding: (0..<generator.int(0...24)).map { _ in alphabet[generator.below(alphabet.count)] }, as: UTF8.self)
            }
            let (before, skip) = (text(), text())
            guard let cursor = CardsView.PageCursor(before: before, skip: skip) else { continue }
            #expect(cursor.date.isFinite)
            #expect((0...CardsView.PageCursor.maximumSkipped).contains(cursor.skipped))
            // Its link reads back the same cursor.
            let fields = Dictionary(uniqueKeysWithValues: cursor.query.split(separator: "&").map { field in
                let parts = field.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            })
            #expect(CardsView.PageCursor(before: fields["before"], skip: fields["skip"]) == cursor)
        }
        // Every date round-trips exactly through the link.
        for _ in 0..<1_000 {
            let date = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF) * (generator.chance(0.5) ? 1 : -1)
            let cursor = CardsView.PageCursor(date: date, skipped: generator.int(0...10))
            let before = cursor.query.split(separator: "&")[0].dropFirst("before=".count)
            #expect(CardsView.PageCursor(before: String(before), skip: String(cursor.skipped)) == cursor)
        }
    }
}
