import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// Versions: `vread` (`GET /fhir/{type}/{id}/_history/{vid}`), the instance history
/// (`GET /fhir/{type}/{id}/_history`) and the type history (`GET /fhir/{type}/_history`), read
/// from the versions the store keeps (``FhirBlocksStore/ResourceHistoryStore``). A version is
/// shown only when the token may read it as a read by id would (scope and labels), and the
/// resource's current version too (a resource hidden now keeps its past hidden). Histories
/// are `history` Bundles, newest first, paged by `_count` and an absolute `next` link, and
/// limited by `_since` (the versions made at or after that instant, as FHIR's history says).
extension FHIRController {
    /// `ETag` and `Last-Modified` of a version.
    static func versionHeaders(_ record: FHIRResourceRecord) -> [(String, String)] {
        [("ETag", "W/\"\(record.versionID)\""), ("Last-Modified", httpDate(record.lastUpdated))]
    }

    /// An HTTP date (RFC 9110's IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ instant: Timestamp) -> String {
        let seconds = instant.secondsSince1970
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let date = CivilCalendar.civilDate(daysSinceEpoch: Int(days))
        let weekday = Int(((days % 7) + 11) % 7)   // 1970-01-01 was a Thursday
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { CivilCalendar.padded(value, width: 2) }
        return "\(names[weekday]), \(two(date.day)) \(months[date.month - 1]) \(date.year) "
            + "\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// `GET /fhir/{type}/{id}/_history/{vid}`: one version, with its `ETag` and `Last-Modified`.
    func vread(type: String, id: String, version versionText: String, access: BearerAccess) async -> ServiceResponse {
        guard ResourceScope(type) != nil, Self.isValidID(id), Self.notStoredTypeRefusal(type) == nil else {
            return Self.outcome(status: 404, code: "not-found", "unknown resource")
        }
        if isSystemAccess(access) { return await systemVersions(type: type, id: id, version: versionText, request: nil, access: access) }
        guard covers(access.grants, type: type, interaction: .read) else {
            try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "insufficient_scope")
            return Self.outcome(status: 403, code: "forbidden", "the token's scope does not cover reading \(type)")
        }
        let notFound = Self.outcome(status: 404, code: "not-found", "\(type)/\(id)/_history/\(versionText) is not known")
        guard let version = Int(versionText), version >= 1, let history = historyStore else { return notFound }
        let record: FHIRResourceRecord?
        let current: FHIRResourceRecord?
        do {
            current = try await currentOrLastVersion(type: type, id: id, patient: access.token.patient)
            record = try await history.resourceVersion(patient: access.token.patient, type: type, id: id, version: version)
        } catch {
            return Self.outcome(status: 500, code: "exception", "storage failure")
        }
        // A deletion is seen as the version it ended is.
        guard let record, let current, visible(stored: current.json, type: type, interaction: .read, grants: access.grants),
              record.isDeletion || visible(stored: record.json, type: type, interaction: .read, grants: access.grants) else {
            try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "not-found")
            return notFound
        }
        if record.isDeletion {
            try? await auditAccess(access, resources: ["\(type)/\(id)/_history/\(version)"], outcome: .minorFailure, reason: "deleted")
            return Self.outcome(status: 410, code: "deleted", "version \(version) of \(type)/\(id) is its deletion",
                                headers: [("ETag", "W/\"\(version)\"")])
        }
        do {
            try await auditAccess(access, resources: ["\(type)/\(id)/_history/\(version)"], outcome: .success)
        } catch {
            return Self.outcome(status: 500, code: "exception", "the access could not be audited")
        }
        return ServiceResponse(contentType: Self.fhirJSON, headers: Self.versionHeaders(record), body: record.json)
    }

    /// `GET /fhir/{type}/{id}/_history` (`id` given) or `GET /fhir/{type}/_history`: a page of
    /// versions, newest first.
    func history(type: String, id: String?, request: ServiceRequest, access: BearerAccess) async -> ServiceResponse {
        guard ResourceScope(type) != nil, Self.notStoredTypeRefusal(type) == nil, id.map(Self.isValidID) ?? true else {
            return Self.outcome(status: 404, code: "not-found", "unknown resource")
        }
        // A backend token: one resource's history in the granting patient's compartment holding it; a type's names no patient.
        if isSystemAccess(access) {
            guard let id else { return await patientRequired(type, access: access, what: "history") }
            return await systemVersions(type: type, id: id, version: nil, request: request, access: access)
        }
        guard covers(access.grants, type: type, interaction: .read) else {
            try? await auditAccess(access, resources: [id.map { "\(type)/\($0)" } ?? type], outcome: .minorFailure, reason: "insufficient_scope")
            return Self.outcome(status: 403, code: "forbidden", "the token's scope does not cover reading \(type)")
        }
        var count = SearchQuery.defaultCount
        var cursor: ResourceHistoryCursor?
        var since: Timestamp?
        do {
            let parameters = try FormBody.parse(Array(request.rawQuery.utf8), mode: .strict, repeatsAllowed: true).value.fields
            for (name, value) in parameters {
                switch name {
                case "_count":
                    guard let number = Int(value), number >= 0 else { return Self.outcome(status: 400, code: "invalid", "_count must be a whole number") }
                    count = min(number, SearchQuery.maximumCount)
                case "_cursor":
                    guard let parsed = ResourceHistoryCursor(text: value) else { return Self.outcome(status: 400, code: "invalid", "the cursor is not valid") }
                    cursor = parsed
                case "_since":
                    guard since == nil, let range = SearchDateRange(fhir: value) else {
                        return Self.outcome(status: 400, code: "invalid", "_since must be one FHIR instant")
                    }
                    since = Timestamp(millisecondsSince1970: range.low)
                default:
                    return Self.outcome(status: 400, code: "not-supported", "\(name) is not supported on _history (only _count and _since)")
                }
            }
        } catch {
            return Self.outcome(status: 400, code: "invalid", "the query string cannot be read")
        }
        guard let historyStore else { return Self.outcome(status: 404, code: "not-found", "this store keeps no history") }
        var page: [FHIRResourceRecord] = []
        var more = false
        do {
            if let id {
                // The resource must be readable now (if deleted, its last version), or its history is not shown at all.
                guard let current = try await currentOrLastVersion(type: type, id: id, patient: access.token.patient),
                      visible(stored: current.json, type: type, interaction: .read, grants: access.grants) else {
                    try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "not-found")
                    return Self.outcome(status: 404, code: "not-found", "\(type)/\(id) is not known")
                }
            }
            var after = cursor
            var batch = min(count + 1, Self.everythingBatchLimit)
            reading: while true {
                let records = try await historyStore.resourceHistory(patient: access.token.patient, type: type, id: id, after: after, limit: batch)
                // The current versions of the batch's resources, for their labels now.
                var currentVisible: [String: Bool] = [:]
                if id == nil {
                    let ids = Array(Set(records.map(\.id)))
                    for current in try await store.resources(patient: access.token.patient, type: type, ids: ids) {
                        currentVisible[current.id] = visible(stored: current.json, type: type, interaction: .read, grants: access.grants)
                    }
                    // A deleted resource: as its last version.
                    for deleted in ids where currentVisible[deleted] == nil {
                        let last = try await deletionEnding(type: type, id: deleted, patient: access.token.patient)?.last
                        currentVisible[deleted] = last.map { visible(stored: $0.json, type: type, interaction: .read, grants: access.grants) } ?? false
                    }
                }
                for record in records {
                    // Newest first: the first version older than `_since` ends the history.
                    if let since, record.lastUpdated < since { break reading }
                    after = ResourceHistoryCursor(after: record)
                    guard id != nil || currentVisible[record.id] == true,
                          record.isDeletion || visible(stored: record.json, type: type, interaction: .read, grants: access.grants) else { continue }
                    if page.count == count {
                        more = true
                        break reading
                    }
                    page.append(record)
                }
                if records.count < batch { break }
                batch = min(batch * 2, Self.everythingBatchLimit)
            }
        } catch {
            return Self.outcome(status: 500, code: "exception", "storage failure")
        }
        let subject = id.map { "\(type)/\($0)" } ?? type
        do {
            try await auditAccess(access, resources: page.isEmpty ? [subject] : page.map { "\($0.type)/\($0.id)/_history/\($0.versionID)" },
                                  outcome: .success)
        } catch {
            return Self.outcome(status: 500, code: "exception", "the access could not be audited")
        }
        let path = "\(baseURL)/fhir/\(subject)/_history"
        var bundle = JSONObject()
        bundle.append("resourceType", "Bundle")
        bundle.append("type", "history")
        if cursor == nil, !more { bundle.append("total", .number(String(page.count))) }
        var links = [Self.link("self", path + "?" + Self.historyQuery(count: count, cursor: cursor, since: since))]
        if more, let last = page.last {
            links.append(Self.link("next", path + "?" + Self.historyQuery(count: count, cursor: ResourceHistoryCursor(after: last), since: since)))
        }
        bundle.append("link", .array(links))
        var entries: [JSONValue] = []
        for record in page {
            var entry = JSONObject()
            entry.append("fullUrl", "\(baseURL)/fhir/\(record.type)/\(record.id)")
            let method: String
            if record.isDeletion {
                method = "DELETE"   // a deletion has no resource
            } else {
                guard let resource = try? JSONParser.parse(record.json, maximumDepth: 256) else { continue }
                entry.append("resource", resource)
                method = record.versionID == 1 ? "POST" : "PUT"
            }
            var requestObject = JSONObject()
            requestObject.append("method", .string(method))
            requestObject.append("url", method == "POST" ? record.type : "\(record.type)/\(record.id)")
            entry.append("request", .object(requestObject))
            var response = JSONObject()
            response.append("status", method == "DELETE" ? "204" : method == "POST" ? "201" : "200")
            response.append("etag", "W/\"\(record.versionID)\"")
            response.append("lastModified", record.lastUpdated.wireText)
            entry.append("response", .object(response))
            entries.append(.object(entry))
        }
        if !entries.isEmpty { bundle.append("entry", .array(entries)) }
        return .json(.object(bundle), contentType: Self.fhirJSON)
    }

    private static func historyQuery(count: Int, cursor: ResourceHistoryCursor?, since: Timestamp?) -> String {
        var fields: [(name: String, value: String)] = [(name: "_count", value: String(count))]
        if let since { fields.append((name: "_since", value: since.wireText)) }
        if let cursor { fields.append((name: "_cursor", value: cursor.text)) }
        return String(decoding: FormBody(fields: fields).encoded(), as: UTF8.self)
    }
}
