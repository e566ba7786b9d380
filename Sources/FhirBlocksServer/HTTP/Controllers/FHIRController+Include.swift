import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// `_include` and `_revinclude` on a search: the resources a page's matches reference through
/// a reference search parameter (`_include=Observation:subject`), and those that reference
/// the matches (`_revinclude=Provenance:target`). Only the token's compartment is read, and
/// every included resource passes the same scope and label filters as a read by id, a SMART
/// v2 granular scope's query checked per resource (a resource the token may not read is left
/// out, as if absent); they go into the Bundle
/// with `search.mode = include` and are audited with the matches.
extension FHIRController {
    /// The most resources one page includes (the rest are left out, as FHIR allows).
    static let maximumIncluded = 1_000

    /// The resources `controls` includes for `matches` (a page of a search of `type`), each once
    /// and none of the matches, in the order the inclusions are listed.
    func included(_ controls: FHIRResultControls, type: String, matches: [FHIRResourceRecord], access: BearerAccess) async throws(TrustStoreError)
        -> [FHIRResourceRecord] {
        guard !matches.isEmpty, !controls.includes.isEmpty || !controls.revincludes.isEmpty else { return [] }
        var seen = Set(matches.map { "\($0.type)/\($0.id)" })
        var included: [FHIRResourceRecord] = []
        func add(_ record: FHIRResourceRecord) {
            guard included.count < Self.maximumIncluded, record.patient == access.token.patient,
                  visible(stored: record.json, type: record.type, interaction: .read, grants: access.grants),
                  seen.insert("\(record.type)/\(record.id)").inserted else { return }
            included.append(record)
        }
        if !controls.includes.isEmpty {
            let parsed = matches.compactMap { try? JSONParser.parse($0.json, maximumDepth: 256) }
            for inclusion in controls.includes {
                var wanted: [String: [String]] = [:]
                for value in parsed {
                    for reference in SearchValues.references(value, parameter: inclusion.parameter) {
                        guard let target = Self.localReference(reference, base: baseURL),
                              inclusion.targetType == nil || inclusion.targetType == target.type,
                              !seen.contains("\(target.type)/\(target.id)") else { continue }
                        wanted[target.type, default: []].append(target.id)
                    }
                }
                for (targetType, ids) in wanted.sorted(by: { $0.key < $1.key })
                where covers(access.grants, type: targetType, interaction: .read) {
                    let unique = Array(Set(ids)).sorted()
                    var records = try await store.resources(patient: access.token.patient, type: targetType, ids: unique)
                    // `Patient/<csiGuid>` names the compartment's Patient resource, as a read does.
                    if targetType == "Patient", records.isEmpty, unique.contains(where: { CsiGuid($0) == access.token.patient }) {
                        records = try await store.resources(patient: access.token.patient, type: "Patient").prefix(1).map { $0 }
                    }
                    records.sorted { $0.id < $1.id }.forEach(add)
                }
            }
        }
        for inclusion in controls.revincludes where covers(access.grants, type: inclusion.sourceType, interaction: .read) {
            if let target = inclusion.targetType, target != type { continue }
            // The store filters by labels under the grants without their granular queries (a filtered
            // grant alone would hide the whole type); `add` then checks each resource's query, as a search does.
            let grants = access.grants.map(\.unfiltered)
            let policy = configuration.labelPolicy
            let sourceType = inclusion.sourceType
            let values = matches.map { SearchValue.reference(type: type, id: $0.id) }
            var start = 0
            while start < values.count, included.count < Self.maximumIncluded {
                let chunk = Array(values[start..<min(start + SearchQuery.maximumValues, values.count)])
                start += chunk.count
                var query = SearchQuery(type: sourceType, clauses: [SearchClause(parameter: inclusion.parameter, values: chunk)],
                                        count: SearchQuery.maximumCount)
                query.timeBudget = configuration.searchTimeBudget
                while included.count < Self.maximumIncluded {
                    let result = try await store.search(query, patient: access.token.patient) { labels in
                        AccessDecision.evaluate(grants: grants, resourceType: sourceType, interaction: .read, labels: labels, policy: policy).isPermitted
                    }
                    result.records.forEach(add)
                    guard let next = result.next else { break }
                    query.cursor = next
                }
            }
        }
        return included
    }

    /// The type and id of a reference to a resource on this server: `Type/id`,
    /// `Type/id/_history/n`, or either under this server's `<base>/fhir/`. Nil for anything
    /// else (other servers, contained `#…`, `urn:`, malformed).
    static func localReference(_ reference: String, base: String) -> (type: String, id: String)? {
        var text = Substring(reference)
        let prefix = base + "/fhir/"
        if text.hasPrefix(prefix) {
            text = text.dropFirst(prefix.count)
        } else if text.contains(":") || text.hasPrefix("#") {
            return nil
        }
        var parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 4, parts[2] == "_history" { parts.removeLast(2) }
        guard parts.count == 2, ResourceScope(parts[0]) != nil, isValidID(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }
}
