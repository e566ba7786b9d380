import ExactJSON
import FhirBlocks
import FhirBlocksStore

extension FHIRController {
    /// `GET /fhir/AuditEvent?_count=N[&_cursor=I][&agent:not=CSI]`: one page of the audit
    /// entries about the token's patient that it may see, newest first, with a `next` link while
    /// older entries remain (see `auditEventPage`).
    func auditEventSearchPage(request: ServiceRequest, access: BearerAccess) async -> ServiceResponse {
        let paging: AuditEventPaging
        do {
            paging = try AuditEventPaging(rawQuery: request.rawQuery)
        } catch {
            return Self.outcome(status: 400, code: "invalid", error.description)
        }
        var events: [JSONValue] = []
        var next: Int?
        if let patientParameter = request.query["patient"] ?? request.query["subject"],
           !(await isTokenPatient(patientParameter, patient: access.token.patient, grants: access.grants)) {
            // Another patient's compartment: nothing to see (as if empty).
        } else {
            do {
                (events, next) = try await auditEventPage(patient: access.token.patient, reader: trustLedger.auditReader(access), paging: paging)
            } catch {
                return Self.outcome(status: 500, code: "exception", "storage failure")
            }
        }
        let visibleEvents = events.filter { visible($0, type: "AuditEvent", interaction: .search, grants: access.grants) }
        let references = visibleEvents.compactMap { value -> String? in value.objectValue?["id"]?.stringValue.map { "AuditEvent/\($0)" } }
        do {
            try await auditAccess(access, resources: references.isEmpty ? ["AuditEvent"] : references, outcome: .success)
        } catch {
            return Self.outcome(status: 500, code: "exception", "the access could not be audited")
        }
        let base = baseURL
        let link = "\(base)/fhir/AuditEvent"
        var links: [JSONValue] = [Self.linkEntry("self", paging.link(link, cursor: paging.cursor))]
        if let next { links.append(Self.linkEntry("next", paging.link(link, cursor: next))) }
        var bundle = JSONObject()
        bundle.append("resourceType", "Bundle")
        bundle.append("type", "searchset")
        bundle.append("link", .array(links))
        bundle.append("entry", .array(visibleEvents.map { value in
            var entry = JSONObject()
            if let id = value.objectValue?["id"]?.stringValue { entry.append("fullUrl", "\(base)/fhir/AuditEvent/\(id)") }
            entry.append("resource", value)
            entry.append("search", .object(JSONObject(members: [JSONMember(key: "mode", value: .string("match"))])))
            return .object(entry)
        }))
        return .json(.object(bundle), contentType: Self.fhirJSON)
    }

    /// The page: up to `paging.count` AuditEvents about `patient` that `reader` may see, newest
    /// first, from before `paging.cursor`; and the cursor of the next page (nil when none
    /// remain). The entries are found in the audit log's index of the patient's entries
    /// (`AuditLog.patientEntries`; those another agent made when `agent:not` names the patient),
    /// each read by its log index; at most `AuditEventPaging.scanLimit` are read for one page
    /// when the reader or `agent:not` leaves some out.
    func auditEventPage(patient: CsiGuid, reader: AuditReader, paging: AuditEventPaging) async throws(TrustStoreError)
        -> (events: [JSONValue], next: Int?) {
        // Entries another server appended are indexed first (an indexed read from the last known index on).
        try await committer.auditLog.sync()
        let othersOnly = paging.excludedAgent == patient.rawValue
        var cursor = paging.cursor ?? Int.max
        var events: [JSONValue] = []
        var read = 0
        var more = true
        while events.count < paging.count, read < AuditEventPaging.scanLimit, more {
            let candidates: [Int]
            (candidates, more) = committer.auditLog.patientEntries(patient.rawValue, before: cursor, limit: paging.count - events.count,
                                                         othersOnly: othersOnly)
            for index in candidates {
                cursor = index
                read += 1
                guard let record = try await store.auditRecords(from: index, limit: 1).first, record.index == index,
                      let entry = try? AuditEntry(canonicalBytes: record.canonicalBytes), entry.patient == patient.rawValue,
                      reader.maySee(entry), entry.agent != paging.excludedAgent,
                      case .object(var event) = entry.auditEvent(observer: baseURL) else { continue }
                event["id"] = .string("log-\(record.index)")
                event["extension"] = .array([.object(JSONObject(members: [
                    JSONMember(key: "url", value: .string("https://openhealthkit.org/fhir/StructureDefinition/fhirblocks-log-index")),
                    JSONMember(key: "valueInteger", value: .number(String(record.index))),
                ]))])
                events.append(.object(event))
            }
            if candidates.isEmpty { more = false }
        }
        return (events, more ? cursor : nil)
    }

    private static func linkEntry(_ relation: String, _ url: String) -> JSONValue {
        .object(JSONObject(members: [JSONMember(key: "relation", value: .string(relation)), JSONMember(key: "url", value: .string(url))]))
    }
}
