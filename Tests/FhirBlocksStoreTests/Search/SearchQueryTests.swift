import ExactJSON
import Foundation
import Testing
import TestSupport
@testable import FhirBlocksStore

/// Parsing and evaluating FHIR search in memory: parameters, modifiers, prefixes, partial
/// dates as ranges, OR and AND, unknown parameters, sorting and paging.
@Suite struct SearchQueryTests {
    static func ms(_ text: String) -> Int64 {
        SearchDateRange(fhir: text)?.low ?? -1
    }

    static func observation(_ id: String, code: String = "1234-5", system: String = "http://loinc.org",
                            effective: String = "\"effectiveDateTime\":\"2020-03-04T10:00:00Z\"",
                            status: String = "final") -> JSONValue {
        let text = #"{"resourceType":"Observation","id":"\#(id)","status":"\#(status)","code":{"coding":[{"system":"\#(system)","code":"\#(code)"}]},"# +
            #""category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],"# +
            #""subject":{"reference":"Patient/p1"},\#(effective)}"#
        return (try? JSONParser.parse(Array(text.utf8))) ?? .null
    }

    @Test func partialDatesAreRanges() throws {
        let year = try #require(SearchDateRange(fhir: "2020"))
        #expect(year.low == Self.ms("2020-01-01T00:00:00Z") && year.high == Self.ms("2021-01-01T00:00:00Z") - 1)
        let february = try #require(SearchDateRange(fhir: "2024-02"))
        #expect(february.high - february.low + 1 == 29 * 86_400_000)
        let day = try #require(SearchDateRange(fhir: "2020-03-04"))
        #expect(day.high - day.low + 1 == 86_400_000)
        let minute = try #require(SearchDateRange(fhir: "2020-03-04T10:00+02:00"))
        #expect(minute.low == Self.ms("2020-03-04T08:00:00Z") && minute.high - minute.low + 1 == 60_000)
        let millisecond = try #require(SearchDateRange(fhir: "2020-03-04T10:00:00.123Z"))
        #expect(millisecond.low == millisecond.high && millisecond.low == Self.ms("2020-03-04T10:00:00Z") + 123)
        for bad in ["", "20", "2020-13", "2020-02-30", "2020-01-01T25:00Z", "2020-01-01T10", "2020-01-01X", "2020-01-01T10:00:00+1:00"] {
            #expect(SearchDateRange(fhir: bad) == nil, "\(bad)")
        }
    }

    @Test func datePrefixesFollowTheRangeRules() throws {
        let query = try #require(SearchDateRange(fhir: "2020-03"))
        let inside = try #require(SearchDateRange(fhir: "2020-03-04"))
        let straddling = SearchDateRange(low: Self.ms("2020-02-20"), high: Self.ms("2020-03-10"))
        let after = try #require(SearchDateRange(fhir: "2020-05"))
        #expect(SearchDatePrefix.eq.matches(inside, query) && !SearchDatePrefix.eq.matches(straddling, query))
        #expect(SearchDatePrefix.ne.matches(straddling, query) && !SearchDatePrefix.ne.matches(inside, query))
        #expect(SearchDatePrefix.gt.matches(after, query) && !SearchDatePrefix.gt.matches(inside, query))
        #expect(SearchDatePrefix.lt.matches(straddling, query) && !SearchDatePrefix.lt.matches(after, query))
        #expect(SearchDatePrefix.ge.matches(inside, query) && SearchDatePrefix.ge.matches(after, query) && !SearchDatePrefix.ge.matches(straddling, query))
        #expect(SearchDatePrefix.le.matches(inside, query) && SearchDatePrefix.le.matches(straddling, query) && !SearchDatePrefix.le.matches(after, query))
        #expect(SearchDatePrefix.sa.matches(after, query) && SearchDatePrefix.eb.matches(SearchDateRange(fhir: "2019")!, query))
    }

    @Test func parsesTokensDatesOrAndAnd() throws {
        let query = try SearchQuery(type: "Observation", parameters: [
            ("code", "http://loinc.org|1234-5,9999-9"), ("date", "ge2020-01"), ("date", "lt2021"), ("status:not", "cancelled"),
            ("_count", "10"), ("_sort", "-date"), ("patient", "Patient/p1"), ("_format", "json"),
        ], strict: true)
        #expect(query.clauses.count == 4 && query.count == 10 && query.sort == SearchSort(key: "date", descending: true))
        #expect(query.clauses[0].values == [.token(system: "http://loinc.org", code: "1234-5"), .token(system: nil, code: "9999-9")])
        #expect(query.clauses[3].modifier == .not && query.compartment == ["Patient/p1"] && query.ignored.isEmpty)
        #expect(query.clauses.allSatisfy { $0.isIndexed })
        let matching = Self.observation("a")
        #expect(SearchEngine.matches(matching, query))
        #expect(!SearchEngine.matches(Self.observation("b", code: "1234-5", system: "urn:other"), query))
        #expect(SearchEngine.matches(Self.observation("c", code: "9999-9", system: "urn:any"), query))
        #expect(!SearchEngine.matches(Self.observation("d", effective: "\"effectiveDateTime\":\"2021-06-01\""), query))
        #expect(!SearchEngine.matches(Self.observation("e", status: "cancelled"), query))
        // A Period is a range; an open end is unbounded.
        #expect(SearchEngine.matches(Self.observation("f", effective: #""effectivePeriod":{"start":"2020-05-01"}"#),
                                     try SearchQuery(type: "Observation", parameters: [("date", "gt2030")], strict: true)))
        // `|code` means no system; `system|` any code of the system.
        let noSystem = try SearchQuery(type: "Observation", parameters: [("status", "|final")], strict: true)
        #expect(SearchEngine.matches(matching, noSystem))
        let anyCode = try SearchQuery(type: "Observation", parameters: [("category", "http://terminology.hl7.org/CodeSystem/observation-category|")],
                                      strict: true)
        #expect(SearchEngine.matches(matching, anyCode))
        // References and strings are evaluated on the JSON only.
        let reference = try SearchQuery(type: "Observation", parameters: [("subject", "Patient/p1")], strict: true)
        #expect(reference.compartment == ["Patient/p1"])
        let missing = try SearchQuery(type: "Observation", parameters: [("encounter:missing", "true"), ("value-string:contains", "x")], strict: true)
        #expect(SearchEngine.matches(matching, SearchQuery(type: "Observation", clauses: [missing.clauses[0]])))
        #expect(!SearchEngine.matches(matching, missing) && !missing.clauses[1].isIndexed)
    }

    /// The byte-level shortcuts for values without commas, backslashes (or non-ASCII) give what
    /// the character-by-character scans give, on random values built from the bytes that matter.
    @Test func valueShortcutsAgreeWithTheCharacterScan() {
        let pieces = ["a", "7", "|", ",", "\\", "é", "\u{301}", "\r", "\n", "$", "http://loinc.org", "-", " "]
        var random = SplitMix64(seed: 415)
        for _ in 0..<2_000 {
            let text = (0..<random.int(0...8)).map { _ in pieces[random.below(pieces.count)] }.joined()
            #expect(SearchQuery.splitAlternatives(text) == SearchQuery.splitAlternativesByCharacter(text), "\(text.debugDescription)")
            #expect(SearchQuery.unescapedBar(in: text) == SearchQuery.unescapedBarByCharacter(in: text), "\(text.debugDescription)")
            #expect(SearchQuery.unescape(text) == text.replacingOccurrences(of: "\\|", with: "|"), "\(text.debugDescription)")
        }
    }

    @Test func unknownParametersAreListedOrRefused() throws {
        let lenient = try SearchQuery(type: "Observation", parameters: [("colour", "red"), ("code", "x")], strict: false)
        #expect(lenient.ignored == ["colour"] && lenient.clauses.count == 1)
        #expect(throws: SearchError.unknownParameter("colour")) {
            try SearchQuery(type: "Observation", parameters: [("colour", "red")], strict: true)
        }
        for bad: (String, String) in [("date", "2020-99"), ("_count", "-1"), ("code:exact", "x"), ("_sort", "code"), ("_cursor", "nodot"),
                                      ("code", "|"), ("status:missing", "maybe"), ("_sort", "date,_id")] {
            #expect(throws: SearchError.self, "\(bad)") { try SearchQuery(type: "Observation", parameters: [bad], strict: false) }
        }
        // The common parameters apply to every type.
        let common = try SearchQuery(type: "Condition", parameters: [("_id", "c1"), ("_lastUpdated", "gt2020")], strict: true)
        #expect(common.clauses.map(\.parameter.base) == ["Resource", "Resource"])
    }

    @Test func pagesFollowTheSortAndTheCursor() {
        let positions = [SearchSortPosition(key: 3, id: "a"), SearchSortPosition(key: nil, id: "b"), SearchSortPosition(key: 1, id: "c"),
                         SearchSortPosition(key: 3, id: "d"), SearchSortPosition(key: 2, id: "e")]
        var query = SearchQuery(type: "Observation", count: 2, sort: SearchSort(key: "date"))
        var seen: [String] = []
        while true {
            let (page, next) = SearchEngine.page(positions, query: query)
            seen += page.map(\.id)
            guard let next else { break }
            query.cursor = SearchCursor(text: next.text)
        }
        #expect(seen == ["c", "e", "a", "d", "b"])
        let descending = SearchEngine.page(positions, query: SearchQuery(type: "Observation", count: 10, sort: SearchSort(key: "date", descending: true)))
        #expect(descending.page.map(\.id) == ["d", "a", "e", "c", "b"] && descending.next == nil)
    }

    @Test func indexEntriesCoverTokensAndDates() {
        let entries = SearchIndexEntries(resource: Self.observation("a"), type: "Observation")
        #expect(entries.tokens.contains(.init(parameter: "code", token: SearchToken(system: "http://loinc.org", code: "1234-5"))))
        #expect(entries.tokens.contains(.init(parameter: "_id", token: SearchToken(system: "", code: "a"))))
        #expect(entries.dates.contains(.init(parameter: "date", range: SearchDateRange(fhir: "2020-03-04T10:00:00Z")!)))
        #expect(Set(entries.tokens.map(\.parameter)).isSuperset(of: ["code", "category", "status", "combo-code"]))
    }
}
