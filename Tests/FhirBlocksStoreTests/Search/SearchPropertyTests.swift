import ExactJSON
import FhirBlocks
import FhirBlocksStore
import Testing
import TestSupport

/// Search through a store (the indexed part in SQL, then the exact matcher, the label filter
/// and key-based paging) agrees with a straightforward filter over the same resources in
/// memory, for random resources and random queries, on every backend.
@Suite struct SearchPropertyTests {
    static var backends: [StoreBackend] { [.sqlite] + (StoreBackends.postgresAvailable ? [.postgres] : []) }

    static let codes = [("http://loinc.org", "8867-4"), ("http://loinc.org", "8310-5"), ("urn:local", "8867-4"), ("http://snomed.info/sct", "271649006")]
    static let statuses = ["final", "preliminary", "cancelled"]
    static let confidentiality = "http://terminology.hl7.org/CodeSystem/v3-Confidentiality"

    static func date(_ random: inout SplitMix64) -> String {
        let year = 2019 + random.below(3)
        let month = TwoDigits.text(1 + random.below(12))
        let day = TwoDigits.text(1 + random.below(28))
        switch random.below(4) {
        case 0: return "\(year)"
        case 1: return "\(year)-\(month)"
        case 2: return "\(year)-\(month)-\(day)"
        default: return "\(year)-\(month)-\(day)T\(TwoDigits.text(random.below(24))):\(TwoDigits.text(random.below(60))):00Z"
        }
    }

    /// Day starts (ms) that the boundary hulls end next to and the queries name.
    static let anchors: [Int64] = [1_583_020_800_000, 1_592_179_200_000, 1_609_459_200_000]   // 2020-03-01, 2020-06-15, 2021-01-01

    /// An instant to the millisecond.
    static func instant(_ milliseconds: Int64) -> String {
        Timestamp(millisecondsSince1970: milliseconds).wireText
    }

    /// A Period of millisecond instants ending 1 ms before, at or 1 ms after an anchor, as wide
    /// as a width class's bound (``SearchSQL/hullSpanBounds``) or 1 ms wider: a hull on each
    /// side of each class bound.
    static func boundaryPeriod(_ random: inout SplitMix64) -> String {
        let end = anchors[random.below(anchors.count)] + Int64(random.below(3) - 1)
        let width = SearchSQL.hullSpanBounds[random.below(SearchSQL.hullSpanBounds.count)] + Int64(random.below(2))
        return #"{"start":"\#(instant(end - width))","end":"\#(instant(end))"}"#
    }

    /// A query's date: an anchor's day, the day before it, or a random date.
    static func queryDate(_ random: inout SplitMix64) -> String {
        guard random.chance(0.5) else { return date(&random) }
        let day = Timestamp(millisecondsSince1970: anchors[random.below(anchors.count)] - Int64(random.below(2)) * 86_400_000).wireText
        return String(day.prefix(10))
    }

    static func observation(_ id: String, _ random: inout SplitMix64) -> String {
        var members: [String] = [#""resourceType":"Observation""#, #""id":"\#(id)""#]
        var meta = [#""lastUpdated":"2024-0\#(1 + random.below(9))-1\#(random.below(10))T10:00:00Z""#]
        if random.chance(0.2) { meta.append(#""security":[{"system":"\#(confidentiality)","code":"\#(random.chance(0.5) ? "R" : "N")"}]"#) }
        members.append(#""meta":{\#(meta.joined(separator: ","))}"#)
        members.append(#""status":"\#(statuses[random.below(statuses.count)])""#)
        let codings = (0..<(1 + random.below(2))).map { _ in
            let (system, code) = codes[random.below(codes.count)]
            return #"{"system":"\#(system)","code":"\#(code)"}"#
        }
        members.append(#""code":{"coding":[\#(codings.joined(separator: ","))]}"#)
        if random.chance(0.7) {
            members.append(#""category":[{"coding":[{"system":"cat","code":"\#(random.chance(0.5) ? "vital-signs" : "laboratory")"}]}]"#)
        }
        switch random.below(6) {
        case 0: break
        case 1:
            let start = random.chance(0.8) ? #""start":"\#(date(&random))""# : nil
            let end = random.chance(0.6) ? #""end":"\#(date(&random))""# : nil
            members.append(#""effectivePeriod":{\#([start, end].compactMap { $0 }.joined(separator: ","))}"#)
        case 2: members.append(#""effectivePeriod":\#(boundaryPeriod(&random))"#)
        case 3:
            let anchor = anchors[random.below(anchors.count)] + Int64(random.below(3) - 1)
            members.append(#""effectiveDateTime":"\#(instant(anchor))""#)
        default: members.append(#""effectiveDateTime":"\#(date(&random))""#)
        }
        if random.chance(0.3) { members.append(#""encounter":{"reference":"Encounter/e\#(random.below(3))"}"#) }
        if random.chance(0.4) { members.append(#""valueString":"\#(random.chance(0.5) ? "Normal" : "high")""#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func query(_ random: inout SplitMix64) -> [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = []
        for _ in 0..<random.below(4) {
            switch random.below(10) {
            case 0, 1:
                let alternatives = (0..<(1 + random.below(2))).map { _ -> String in
                    let (system, code) = codes[random.below(codes.count)]
                    return random.chance(0.5) ? "\(system)|\(code)" : code
                }
                parameters.append(("code", alternatives.joined(separator: ",")))
            case 2: parameters.append(("category", random.chance(0.5) ? "vital-signs" : "cat|laboratory"))
            case 3: parameters.append((random.chance(0.5) ? "status" : "status:not", statuses[random.below(statuses.count)]))
            case 4, 5:
                let prefix = SearchDatePrefix.allCases[random.below(SearchDatePrefix.allCases.count)]
                parameters.append(("date", (random.chance(0.3) ? "" : prefix.rawValue) + queryDate(&random)))
            case 6: parameters.append(("_lastUpdated", "ge2024-0\(1 + random.below(9))"))
            case 7: parameters.append((random.chance(0.5) ? "encounter:missing" : "date:missing", random.chance(0.5) ? "true" : "false"))
            case 8:
                // A date range, as the benchmark's search (both ends bound the hull).
                parameters.append(("date", (random.chance(0.5) ? "ge" : "gt") + queryDate(&random)))
                parameters.append(("date", (random.chance(0.5) ? "lt" : "le") + queryDate(&random)))
            default: parameters.append(random.chance(0.5) ? ("value-string", "norm") : ("encounter", "Encounter/e\(random.below(3))"))
            }
        }
        let sorts = ["_id", "-_id", "date", "-date", "_lastUpdated", "-_lastUpdated"]
        parameters.append(("_sort", sorts[random.below(sorts.count)]))
        parameters.append(("_count", String(1 + random.below(7))))
        return parameters
    }

    /// Labels up to N are visible; R is not.
    static func isVisible(_ labels: SecurityLabels) -> Bool {
        labels.confidentiality.map { $0 <= .N } ?? true
    }

    @Test(arguments: backends)
    func storeSearchAgreesWithAFilterInMemory(backend: StoreBackend) async throws {
        try await StoreBackends.withSession(backend) { session in
            var random = SplitMix64(seed: 0x5EA2C4)
            let patient = Fixtures.csi()
            let other = Fixtures.csi()
            var change = TrustChange()
            var resources: [JSONValue] = []
            for index in 0..<80 {
                let text = Self.observation("o\(index)", &random)
                resources.append(try JSONParser.parse(Array(text.utf8)))
                change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
                    type: "Observation", id: "o\(index)", patient: patient, versionID: 1, lastUpdated: Fixtures.t0, json: Array(text.utf8))))
            }
            // Another compartment's resources never show.
            for index in 0..<10 {
                change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
                    type: "Observation", id: "x\(index)", patient: other, versionID: 1, lastUpdated: Fixtures.t0,
                    json: Array(Self.observation("x\(index)", &random).utf8))))
            }
            try await session.store.commit(change)
            var nonEmpty = 0
            for round in 0..<60 {
                let parameters = Self.query(&random)
                var query = try SearchQuery(type: "Observation", parameters: parameters, strict: true)
                // Expected: filter, label filter, order, in memory.
                let expected = resources.filter { SearchEngine.matches($0, query) && Self.isVisible(SecurityLabels(resource: $0)) }
                    .map { SearchSortPosition(key: SearchEngine.sortKey($0, sort: query.sort, type: "Observation"), id: $0["id"]?.stringValue ?? "") }
                    .sorted { $0.precedes($1, descending: query.sort.descending) }
                    .map(\.id)
                var actual: [String] = []
                var pages = 0
                while true {
                    let result = try await session.store.search(query, patient: patient, isVisible: Self.isVisible)
                    #expect(result.total == expected.count, "round \(round) \(parameters)")
                    #expect(result.records.count <= query.count)
                    actual += result.records.map(\.id)
                    pages += 1
                    guard let next = result.next, pages < 100 else { break }
                    query.cursor = next
                }
                #expect(actual == expected, "round \(round) \(parameters)")
                if expected.count > query.count { nonEmpty += 1 }
            }
            // The random queries are not vacuous: many span several pages.
            #expect(nonEmpty >= 15, "only \(nonEmpty) queries had more than one page")
            // An update replaces the resource's index rows.
            let updated = #"{"resourceType":"Observation","id":"o0","status":"amended","code":{"text":"none"}}"#
            let stored = try #require(try await session.store.resource(patient: patient, type: "Observation", id: "o0"))
            var update = TrustChange()
            update.resources = [FHIRResourceWrite(record: FHIRResourceRecord(type: "Observation", id: "o0", patient: patient,
                                                                             versionID: stored.versionID + 1, lastUpdated: Fixtures.t0,
                                                                             json: Array(updated.utf8)))]
            try await session.store.commit(update)
            let amended = try SearchQuery(type: "Observation", parameters: [("status", "amended")], strict: true)
            #expect(try await session.store.search(amended, patient: patient, isVisible: { _ in true }).records.map(\.id) == ["o0"])
            let byID = try SearchQuery(type: "Observation", parameters: [("_id", "o0"), ("status", "final,preliminary,cancelled")], strict: true)
            #expect(try await session.store.search(byID, patient: patient, isVisible: { _ in true }).total == 0)
        }
    }
}

extension SearchPropertyTests {
    /// Hulls on both sides of every width class's bound, at and next to the queries' ends,
    /// open Periods and partial dates: a token search with date clauses (one branch per width
    /// class in SQL) agrees with the filter in memory.
    @Test(arguments: backends)
    func dateRangesAgreeAtEveryWidthClassBound(backend: StoreBackend) async throws {
        try await StoreBackends.withSession(backend) { session in
            let patient = Fixtures.csi()
            var effective: [String] = []
            for anchor in Self.anchors {
                for bound in SearchSQL.hullSpanBounds {
                    for width in [bound, bound + 1] {
                        for end in [anchor - 1, anchor, anchor + 86_400_000 - 1, anchor + 86_400_000] {
                            effective.append(#""effectivePeriod":{"start":"\#(Self.instant(end - width))","end":"\#(Self.instant(end))"}"#)
                            effective.append(#""effectivePeriod":{"start":"\#(Self.instant(anchor - 1 - width))","end":"\#(Self.instant(end - width))"}"#)
                        }
                    }
                }
                effective.append(#""effectiveDateTime":"\#(Self.instant(anchor))""#)
                effective.append(#""effectivePeriod":{"start":"\#(Self.instant(anchor))"}"#)
                effective.append(#""effectivePeriod":{"end":"\#(Self.instant(anchor - 1))"}"#)
            }
            effective += ["2020", "2019", "2020-02", "2020-06", "2020-12-31", "2021-01-01"].map { #""effectiveDateTime":"\#($0)""# }
            var change = TrustChange()
            var resources: [JSONValue] = []
            for (index, member) in effective.enumerated() {
                let text = #"{"resourceType":"Observation","id":"b\#(index)","status":"final","# +
                    #""code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]},\#(member)}"#
                resources.append(try JSONParser.parse(Array(text.utf8)))
                change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
                    type: "Observation", id: "b\(index)", patient: patient, versionID: 1, lastUpdated: Fixtures.t0, json: Array(text.utf8))))
            }
            try await session.store.commit(change)
            let days = ["2020-02-29", "2020-03-01", "2020-06-14", "2020-06-15", "2020-12-31", "2021-01-01"]
            var matched = 0
            for prefix in SearchDatePrefix.allCases {
                for day in days {
                    for upper in [nil, "lt2021-01-01", "le2020-06-15"] {
                        var parameters = [("code", "http://loinc.org|8867-4"), ("date", prefix.rawValue + day)]
                        if let upper { parameters.append(("date", upper)) }
                        parameters.append(("_count", "1000"))
                        let query = try SearchQuery(type: "Observation", parameters: parameters, strict: true)
                        let expected = Set(resources.filter { SearchEngine.matches($0, query) }.compactMap { $0["id"]?.stringValue })
                        let result = try await session.store.search(query, patient: patient, isVisible: { _ in true })
                        #expect(Set(result.records.map(\.id)) == expected, "\(parameters)")
                        #expect(result.total == expected.count)
                        matched += expected.count
                    }
                }
            }
            // Not vacuous: the queries select many of the hulls.
            #expect(matched > 1000)
        }
    }
}

/// Two-digit text for the generators above.
enum TwoDigits {
    static func text(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
