import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// FHIR search over the stored resources of the token's compartment (`GET /fhir/{type}?…`) and
/// `Patient/{id}/$everything`: the R4 search parameters of ``FhirBlocksStore/SearchParameterTable``
/// (token, date, reference and string), `_count`, `_sort`, key-based paging through absolute
/// `next` links and an accurate `total`. Every result passes the scope and label filters and
/// is audited before it is sent. Under a SMART v2 granular scope the store counts what the
/// grants without their queries cover, so the `total` is counted again over the matches the
/// token may see (``visibleMatches(_:type:interaction:access:keep:enough:)``), and left out
/// when there are too many to count that way: it never counts a resource the token may not see.
extension FHIRController {
    /// Searches stored resources of `type` (not Consent or AuditEvent, which the server builds).
    func searchStored(type: String, request: ServiceRequest, access: BearerAccess) async -> ServiceResponse {
        let parameters: [(name: String, value: String)]
        do {
            parameters = try FormBody.parse(Array(request.rawQuery.utf8), mode: .strict, repeatsAllowed: true).value.fields
        } catch {
            return Self.outcome(status: 400, code: "invalid", "the query string cannot be read")
        }
        let strict = (request.headers["prefer"] ?? "").lowercased().contains("handling=strict")
        let controls: FHIRResultControls
        do {
            controls = try FHIRResultControls(type: type, parameters: parameters, search: true)
        } catch {
            try? await auditAccess(access, resources: [type], outcome: .minorFailure, reason: "invalid_search")
            return Self.outcome(status: 400, code: "not-supported", error.description)
        }
        var query: SearchQuery
        do {
            // A granular scope's query narrows the search itself where it can (matches are checked below too).
            let narrowing = GranularScopes.searchClause(access.grants, type: type).map { [$0] } ?? []
            query = try SearchQuery(type: type, parameters: controls.rest + narrowing, strict: strict)
            if controls.summaryCount { query.count = 0 }
            query.timeBudget = configuration.searchTimeBudget
        } catch {
            try? await auditAccess(access, resources: [type], outcome: .minorFailure, reason: "invalid_search")
            return Self.outcome(status: 400, code: "not-supported", error.description)
        }
        var result = SearchResult(total: 0, records: [], next: nil)
        var total: Int? = 0
        var included: [FHIRResourceRecord] = []
        // One store read per compartment reference, stopping at the first that is not the token's.
        var inCompartment = true
        for reference in query.compartment where !(await isTokenPatient(reference, patient: access.token.patient, grants: access.grants)) {
            inCompartment = false
            break
        }
        if inCompartment {
            // Another patient's compartment answers as an empty one (nothing to see there).
            let grants = access.grants.map(\.unfiltered)
            let policy = configuration.labelPolicy
            do {
                result = try await store.search(query, patient: access.token.patient) { labels in
                    AccessDecision.evaluate(grants: grants, resourceType: type, interaction: .search, labels: labels, policy: policy).isPermitted
                }
                total = result.total
                if GranularScopes.anyFiltered(access.grants) {
                    result.records = result.records.filter { visible(stored: $0.json, type: type, interaction: .search, grants: access.grants) }
                    // The store's total counts what the queries hide: one page holding every match
                    // counts itself, otherwise the matches are counted one by one.
                    if query.cursor == nil, result.next == nil, query.count > 0 {
                        total = result.records.count
                    } else {
                        let counted = try await visibleMatches(query, type: type, interaction: .search, access: access, keep: 0)
                        total = counted.complete ? counted.count : nil
                    }
                }
                included = try await self.included(controls, type: type, matches: result.records, access: access)
            } catch .timedOut {
                logger.warning("a search ran past its time budget", metadata: ["type": "\(type)"])
                return Self.outcome(status: 503, code: "too-costly", "the search ran past the server's time budget; narrow it or try again later",
                                    headers: [("Retry-After", String(Self.searchRetryAfterSeconds))])
            } catch {
                logger.error("a search failed in the store", metadata: ["type": "\(type)", "reason": "\(error.description)"])
                return Self.outcome(status: 500, code: "exception", "storage failure")
            }
        }
        if let elements = controls.elements {
            result.records = result.records.compactMap { record in
                var subset = record
                guard let json = FHIRResultControls.subset(record.json, elements: elements) else { return nil }
                subset.json = json
                return subset
            }
        }
        let references = result.records.map { "\(type)/\($0.id)" } + included.map { "\($0.type)/\($0.id)" }
        do {
            // A search of another patient's compartment is refused (audited so), though it answers as an empty one.
            try await auditAccess(access, resources: references.isEmpty ? [type] : references, outcome: inCompartment ? .success : .minorFailure,
                                  reason: inCompartment ? nil : "other-compartment")
        } catch {
            return Self.outcome(status: 500, code: "exception", "the access could not be audited")
        }
        let link = searchLink(type: type, parameters: parameters)
        let selfLink = link(query.cursor)
        let nextLink = result.next.map(link)
        return ServiceResponse(contentType: Self.fhirJSON,
                               body: searchset(type: type, total: total, records: result.records, selfLink: selfLink,
                                               nextLink: controls.summaryCount ? nil : nextLink, ignored: query.ignored, included: included))
    }

    /// The `Retry-After` of a search stopped at its time budget (seconds).
    static let searchRetryAfterSeconds = 5

    /// The most matches ``visibleMatches(_:type:interaction:access:keep:enough:)`` checks one by one.
    static let maximumCheckedMatches = 10_000

    /// The matches of `query` (from its first on, whatever its cursor and page size) the token
    /// may see: the store filters by labels under the grants without their granular queries,
    /// then each match is checked as a read is (``visible(stored:type:interaction:grants:)``).
    struct VisibleMatches {
        /// The first of them (at most `keep`).
        var records: [FHIRResourceRecord] = []
        /// How many were found.
        var count = 0
        /// Whether every match was checked (so `count` is all of them).
        var complete = false
    }

    /// The matches of `query` the token may see, read ``SearchQuery/maximumCount`` at a time:
    /// the first `keep`, and how many, stopping once `enough` are found or past
    /// ``maximumCheckedMatches`` matches checked (then not `complete`).
    func visibleMatches(_ query: SearchQuery, type: String, interaction: AccessRights, access: BearerAccess, keep: Int, enough: Int = .max)
        async throws(TrustStoreError) -> VisibleMatches {
        var scan = query
        scan.cursor = nil
        scan.count = SearchQuery.maximumCount
        let grants = access.grants.map(\.unfiltered)
        let policy = configuration.labelPolicy
        var found = VisibleMatches()
        var checked = 0
        while true {
            let page = try await store.search(scan, patient: access.token.patient) { labels in
                AccessDecision.evaluate(grants: grants, resourceType: type, interaction: interaction, labels: labels, policy: policy).isPermitted
            }
            for record in page.records where visible(stored: record.json, type: type, interaction: interaction, grants: access.grants) {
                if found.records.count < keep { found.records.append(record) }
                found.count += 1
                if found.count >= enough { return found }
            }
            checked += scan.count
            guard let next = page.next else {
                found.complete = true
                return found
            }
            guard checked < Self.maximumCheckedMatches else { return found }
            scan.cursor = next
        }
    }

    /// The absolute URL of a search page for a cursor: the request's parameters without its
    /// cursor, then the cursor's (the parameters encoded once for every page's link).
    func searchLink(type: String, parameters: [(name: String, value: String)]) -> (SearchCursor?) -> String {
        let kept = String(decoding: FormBody(fields: parameters.filter { $0.name != "_cursor" }).encoded(), as: UTF8.self)
        let path = "\(baseURL)/fhir/\(type)"
        return { cursor in
            guard let cursor else { return kept.isEmpty ? path : path + "?" + kept }
            let encoded = String(decoding: FormBody(fields: [(name: "_cursor", value: cursor.text)]).encoded(), as: UTF8.self)
            return path + "?" + (kept.isEmpty ? encoded : kept + "&" + encoded)
        }
    }

    /// A `searchset` Bundle of `records` (entries of type `type`, or each its own for nil), with
    /// its links and, when parameters were ignored, an OperationOutcome entry naming them, as
    /// JSON bytes. Each resource's stored JSON is copied into its entry as it is, as a read by
    /// id serves it (not parsed: the server stores only JSON it validated on write); stored
    /// bytes that are not delimited as one JSON object (``isDelimitedObject(_:)``) are left out.
    /// `included` resources (`_include`, `_revinclude`) follow the matches with `search.mode`
    /// `include`.
    func searchset(type: String?, total: Int?, records: [FHIRResourceRecord], selfLink: String, nextLink: String?,
                   ignored: [String], included: [FHIRResourceRecord] = []) -> [UInt8] {
        Self.searchset(base: baseURL, type: type, total: total, records: records, selfLink: selfLink, nextLink: nextLink, ignored: ignored,
                       included: included)
    }

    /// ``searchset(type:total:records:selfLink:nextLink:ignored:included:)`` with the server's base URL.
    static func searchset(base: String, type: String?, total: Int?, records: [FHIRResourceRecord], selfLink: String, nextLink: String?,
                          ignored: [String], included: [FHIRResourceRecord] = []) -> [UInt8] {
        var bundle = JSONObject()
        bundle.append("resourceType", "Bundle")
        bundle.append("type", "searchset")
        if let total { bundle.append("total", .number(String(total))) }
        var links: [JSONValue] = [Self.link("self", selfLink)]
        if let nextLink { links.append(Self.link("next", nextLink)) }
        bundle.append("link", .array(links))
        // The bundle without its entries ends with "}": the entries go before it.
        var bytes = JSONWriter.serialize(.object(bundle))
        bytes.removeLast()
        bytes.reserveCapacity(bytes.count + records.reduce(16) { $0 + $1.json.count + $1.id.count + base.count + 80 })
        bytes.append(contentsOf: #","entry":["#.utf8)
        // Each entry's `fullUrl` is "<base>/fhir/<type>/<id>" as a JSON string: the quoted and
        // escaped "<base>/fhir/<type>/" (without its closing quote) is made once per type, and an
        // id that needs no escape is appended as it is (JSON escapes byte by byte, so the two
        // halves escaped apart are the whole escaped).
        var prefixType: String?
        var prefix: [UInt8] = []
        var first = true
        let entries = records.map { ($0, false) } + included.map { ($0, true) }
        for (record, isIncluded) in entries {
            guard Self.isDelimitedObject(record.json) else { continue }
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(contentsOf: #"{"fullUrl":"#.utf8)
            let entryType = isIncluded ? record.type : type ?? record.type
            if prefixType != entryType {
                prefix = JSONWriter.serialize(.string("\(base)/fhir/\(entryType)/"))
                prefix.removeLast()
                prefixType = entryType
            }
            if record.id.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
                bytes.append(contentsOf: prefix)
                bytes.append(contentsOf: record.id.utf8)
                bytes.append(UInt8(ascii: "\""))
            } else {
                bytes.append(contentsOf: JSONWriter.serialize(.string("\(base)/fhir/\(entryType)/\(record.id)")))
            }
            bytes.append(contentsOf: #","resource":"#.utf8)
            bytes.append(contentsOf: record.json)
            bytes.append(contentsOf: isIncluded ? #","search":{"mode":"include"}}"#.utf8 : #","search":{"mode":"match"}}"#.utf8)
        }
        if !ignored.isEmpty {
            var issue = JSONObject()
            issue.append("severity", "warning")
            issue.append("code", "not-supported")
            issue.append("diagnostics", .string("ignored unknown search parameters: " + ignored.joined(separator: ", ")))
            var outcome = JSONObject()
            outcome.append("resourceType", "OperationOutcome")
            outcome.append("issue", .array([.object(issue)]))
            var entry = JSONObject()
            entry.append("resource", .object(outcome))
            entry.append("search", .object(JSONObject(members: [JSONMember(key: "mode", value: .string("outcome"))])))
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(contentsOf: JSONWriter.serialize(.object(entry)))
        }
        if first {
            // Nothing went in: FHIR JSON has no empty arrays, so the bundle ends without "entry".
            bytes.removeLast(#","entry":["#.utf8.count)
            bytes.append(UInt8(ascii: "}"))
        } else {
            bytes.append(contentsOf: "]}".utf8)
        }
        return bytes
    }

    /// Whether `json`, without surrounding JSON whitespace, starts with `{` and ends with `}`:
    /// what every JSON object is (not a check that it is one).
    static func isDelimitedObject<Bytes: BidirectionalCollection<UInt8>>(_ json: Bytes) -> Bool {
        func isWhitespace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
        }
        guard let first = json.firstIndex(where: { !isWhitespace($0) }), let last = json.lastIndex(where: { !isWhitespace($0) }),
              first < last else { return false }
        return json[first] == UInt8(ascii: "{") && json[last] == UInt8(ascii: "}")
    }

    static func link(_ relation: String, _ url: String) -> JSONValue {
        .object(JSONObject(members: [JSONMember(key: "relation", value: .string(relation)), JSONMember(key: "url", value: .string(url))]))
    }
}
