import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// Conditional writes and version preconditions: `If-None-Exist` on create (200 with the one
/// existing match, 412 on several), `PUT /fhir/{type}?search` (update the one match, create
/// when none, 412 on several), `If-Match` on update (412 on a stale version) and
/// `If-None-Match` on read (304). A condition is a strict search (an unknown parameter is
/// 400, never ignored) in the token's compartment, seeing only what the token may read: under a
/// SMART v2 granular scope each match is checked against the scope's query as a read is, so a
/// condition that matches only resources the token may not see matches nothing.
extension FHIRController {
    /// Whether an `If-Match`/`If-None-Match` value names `version`: `*`, or a list of entity
    /// tags, weak (`W/"3"`) or strong (`"3"`).
    static func etag(_ header: String, matches version: Int) -> Bool {
        header.split(separator: ",").contains { part in
            var tag = part.trimmingASCIIWhitespace
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            guard tag.count >= 2, tag.first == "\"", tag.last == "\"" else { return false }
            return tag.dropFirst().dropLast() == Substring(String(version))
        }
    }

    /// `POST /fhir/{type}`: a create, conditional under `If-None-Exist`.
    func create(type: String, request: ServiceRequest, access: BearerAccess) async -> ServiceResponse {
        guard let condition = request.headers["if-none-exist"] else { return await write(type: type, id: nil, body: request.body, access: access) }
        guard ResourceScope(type) != nil else { return Self.outcome(status: 404, code: "not-found", "unknown resource type") }
        var text = Substring(condition)
        if let question = text.firstIndex(of: "?") { text = text[text.index(after: question)...] }
        let matches: ConditionMatches
        switch await conditionMatches(type: type, query: String(text), access: access) {
        case .failure(let refusal): return refusal.response
        case .success(let found): matches = found
        }
        switch (matches.total, matches.records.first) {
        case (0, _):
            return await write(type: type, id: nil, body: request.body, access: access)
        case (1, let record?):
            do {
                try await auditAccess(access, resources: ["\(type)/\(record.id)"], outcome: .success)
            } catch {
                return Self.outcome(status: 500, code: "exception", "the access could not be audited")
            }
            return ServiceResponse(status: 200, contentType: Self.fhirJSON,
                                   headers: [("Location", "\(baseURL)/fhir/\(type)/\(record.id)")] + Self.versionHeaders(record), body: record.json)
        default:
            return Self.outcome(status: 412, code: "duplicate", "If-None-Exist matches \(matches.described)")
        }
    }

    /// `PUT /fhir/{type}?search`: updates the one match (the body's id, if any, must be its
    /// id), creates when there is none, 412 when there are several.
    func conditionalUpdate(type: String, request: ServiceRequest, access: BearerAccess) async -> ServiceResponse {
        guard ResourceScope(type) != nil else { return Self.outcome(status: 404, code: "not-found", "unknown resource type") }
        guard !request.rawQuery.isEmpty else {
            return Self.outcome(status: 400, code: "invalid", "a conditional update needs search parameters (PUT /\(type)?…)")
        }
        let matches: ConditionMatches
        switch await conditionMatches(type: type, query: request.rawQuery, access: access) {
        case .failure(let refusal): return refusal.response
        case .success(let found): matches = found
        }
        let bodyID = (try? JSONParser.parse(request.body, maximumDepth: 64))?.objectValue?["id"]?.stringValue
        switch (matches.total, matches.records.first) {
        case (0, _):
            return await write(type: type, id: bodyID, body: request.body, access: access, ifMatch: request.headers["if-match"])
        case (1, let record?):
            let id = record.id
            if let bodyID, bodyID != id {
                return Self.outcome(status: 400, code: "invalid", "the body's id differs from the one resource the search matches")
            }
            return await write(type: type, id: id, body: request.body, access: access, ifMatch: request.headers["if-match"])
        default:
            return Self.outcome(status: 412, code: "multiple-matches", "the conditional update's search matches \(matches.described)")
        }
    }

    /// What a condition matched: the first two, and how many in all (`exact`), or at least two
    /// (not `exact`: a granular scope's matches are checked until two are found).
    struct ConditionMatches {
        var records: [FHIRResourceRecord]
        var total: Int
        var exact = true

        /// How many resources matched, in words.
        var described: String {
            exact ? "\(total) resources" : "several resources, or too many to check one by one"
        }
    }

    /// A refusal as an error (for `Result`).
    struct Refusal: Error {
        var response: ServiceResponse
    }

    /// Up to two resources of `type` the token may read that match `query` (a query string,
    /// percent-encoded), in the token's compartment.
    func conditionMatches(type: String, query text: String, access: BearerAccess) async -> Result<ConditionMatches, Refusal> {
        guard covers(access.grants, type: type, interaction: .read) else {
            try? await auditAccess(access, resources: [type], outcome: .minorFailure, reason: "insufficient_scope")
            return .failure(Refusal(response: Self.outcome(status: 403, code: "forbidden", "the token's scope does not cover reading \(type)")))
        }
        var query: SearchQuery
        do {
            let parameters = try FormBody.parse(Array(text.utf8), mode: .strict, repeatsAllowed: true).value.fields
            guard !parameters.isEmpty else { throw SearchError.invalid("the condition has no search parameters") }
            query = try SearchQuery(type: type, parameters: parameters, strict: true)
        } catch {
            return .failure(Refusal(response: Self.outcome(status: 400, code: "invalid", "the condition cannot be used: \(error)")))
        }
        query.count = 2
        query.timeBudget = configuration.searchTimeBudget
        for reference in query.compartment where !(await isTokenPatient(reference, patient: access.token.patient, grants: access.grants)) {
            return .success(ConditionMatches(records: [], total: 0))
        }
        // A granular scope's query is checked per resource (the store's count would hold what it hides).
        if GranularScopes.anyFiltered(access.grants) {
            do {
                let found = try await visibleMatches(query, type: type, interaction: .read, access: access, keep: 2, enough: 2)
                // Not all checked: at least two, as far as the callers are concerned (neither none nor one).
                return .success(ConditionMatches(records: found.records, total: found.complete ? found.count : max(found.count, 2), exact: found.complete))
            } catch {
                return .failure(Refusal(response: Self.outcome(status: 500, code: "exception", "storage failure")))
            }
        }
        let grants = access.grants
        let policy = configuration.labelPolicy
        do {
            let result = try await store.search(query, patient: access.token.patient) { labels in
                AccessDecision.evaluate(grants: grants, resourceType: type, interaction: .read, labels: labels, policy: policy).isPermitted
            }
            return .success(ConditionMatches(records: result.records, total: result.total))
        } catch {
            return .failure(Refusal(response: Self.outcome(status: 500, code: "exception", "storage failure")))
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingASCIIWhitespace: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
