import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// `Patient/{id}/$everything`, paged like search: `_count` (default and maximum as in search)
/// and an absolute `next` link carrying `_cursor=TYPE/ID`, the last resource of the page in
/// (type, id) order. The store reads the compartment from the cursor on, in that order, a
/// batch at a time (`TrustStore.resources(patient:after:limit:)`); each resource passes the
/// permission, scope and label filters or is skipped, and batches are read until the page is
/// full (and one more resource is known to follow) or the compartment ends. `total` is given
/// only when the whole compartment fits the first page (counting every page would read it all).
extension FHIRController {
    /// `GET /fhir/Patient/{id}/$everything`: the stored resources of the token's compartment the
    /// token may read, one page at a time. An id outside the compartment answers 404, like an
    /// unknown one.
    func everything(patientID: String, request: ServiceRequest, access: BearerAccess) async -> ServiceResponse {
        if isSystemAccess(access) { return await systemEverything(patientID: patientID, request: request, access: access) }
        guard await isTokenPatient(patientID, patient: access.token.patient, grants: access.grants) else {
            try? await auditAccess(access, resources: ["Patient/\(patientID)"], outcome: .minorFailure, reason: "not-found")
            return Self.outcome(status: 404, code: "not-found", "Patient/\(patientID) is not known")
        }
        let paging: EverythingPaging
        do {
            paging = try EverythingPaging(query: request.rawQuery)
        } catch {
            return Self.outcome(status: 400, code: "invalid", error.description)
        }
        let page: [FHIRResourceRecord]
        let more: Bool
        do {
            (page, more) = try await everythingPage(patient: access.token.patient, paging: paging, grants: access.grants)
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

    /// The page after `paging.cursor`: up to `paging.count` resources the grants may read, and
    /// whether another readable one follows. The first batch asks one more than the page;
    /// when filtered-out resources leave it short, the next batches are twice as large (at
    /// most `everythingBatchLimit`).
    func everythingPage(patient: CsiGuid, paging: EverythingPaging, grants: [PermissionScope]) async throws(TrustStoreError)
        -> (page: [FHIRResourceRecord], more: Bool) {
        var page: [FHIRResourceRecord] = []
        var after = paging.cursor
        var batch = min(paging.count + 1, Self.everythingBatchLimit)
        while true {
            let records = try await store.resources(patient: patient, after: after, limit: batch)
            for record in records {
                after = (record.type, record.id)
                guard visible(stored: record.json, type: record.type, interaction: .read, grants: grants) else { continue }
                if page.count == paging.count { return (page, true) }
                page.append(record)
            }
            if records.count < batch { return (page, false) }
            batch = min(batch * 2, Self.everythingBatchLimit)
        }
    }

    /// The most resources one store read of `$everything` asks for.
    static let everythingBatchLimit = 1_000
}
