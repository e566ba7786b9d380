import FHIRCore
import FhirBlocks
import FhirBlocksStore

/// `Patient/{id}/$everything`, paged like search: `_count` (default and maximum as in search)
/// and an absolute `next` link carrying `_cursor=TYPE/ID`, the last resource of the page in
/// (type, id) order. Only the resources from the cursor on are parsed (to apply the scope and
/// label filters) until the page is full, not the whole compartment; `total` is given only when
/// the whole compartment fits the first page (counting every page would parse it all).
extension TrustService {
    /// `GET /fhir/Patient/{id}/$everything`: the stored resources of the token's compartment the
    /// token may read, one page at a time. An id outside the compartment answers 404, like an
    /// unknown one.
    func everything(patientID: String, request: ServiceRequest, access: BearerAccess) async -> ServiceResponse {
        guard await isTokenPatient(patientID, patient: access.token.patient) else {
            try? await auditAccess(access, resources: ["Patient/\(patientID)"], outcome: .minorFailure, reason: "not-found")
            return Self.outcome(status: 404, code: "not-found", "Patient/\(patientID) is not known")
        }
        let paging: EverythingPaging
        do {
            paging = try EverythingPaging(query: request.rawQuery)
        } catch {
            return Self.outcome(status: 400, code: "invalid", error.description)
        }
        var page: [FHIRResourceRecord] = []
        var more = false
        do {
            let all = try await store.resources(patient: access.token.patient, type: nil).sorted(by: EverythingPaging.precedes)
            for record in all where paging.cursor.map({ EverythingPaging.precedes($0, record) }) ?? true {
                guard let value = try? JSONParser.parse(record.json),
                      visible(value, type: record.type, interaction: .read, grants: access.grants) else { continue }
                if page.count == paging.count {
                    more = true
                    break
                }
                page.append(record)
            }
        } catch {
            return Self.outcome(status: 500, code: "exception", "storage failure")
        }
        do {
            try await auditAccess(access, resources: page.isEmpty ? ["Patient/\(patientID)"] : page.map { "\($0.type)/\($0.id)" },
                                  outcome: .success)
        } catch {
            return Self.outcome(status: 500, code: "exception", "the access could not be audited")
        }
        let link = "\(baseURL)/fhir/Patient/\(patientID)/$everything"
        let next = more ? page.last.map { paging.link(link, after: $0) } : nil
        return ServiceResponse(contentType: Self.fhirJSON,
                               body: searchset(type: nil, total: paging.cursor == nil && !more ? page.count : nil, records: page,
                                               selfLink: paging.link(link, after: nil), nextLink: next, ignored: []))
    }
}
