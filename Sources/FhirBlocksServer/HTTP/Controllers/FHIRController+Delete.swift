import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// `DELETE /fhir/{type}/{id}` and what a deletion leaves: the resource's current version is
/// removed (with its search index rows) and the deletion is kept as the next version in its
/// history (``FhirBlocksStore/FHIRResourceRecord/isDeletion``). A read of it then answers 410
/// Gone, its history lists the deletion (`request.method` `DELETE`) after the versions
/// before it, which `vread` still serves; a PUT by the patient's wallet creates it again
/// with the next version. A delete passes the same checks as a write: the token's scope
/// must cover deleting the type, it must be allowed to read and delete the current version's
/// labels (what it may not see answers 404, as an absent resource does), `If-Match` must
/// name the current version (else 412); every outcome is audited (action `D`).
///
/// `Group` is the Bulk Data Groups' (`POST /fhir/Group`, ``BulkExportController``): a client
/// reads the Groups it created by id; nothing else of the FHIR REST applies to them.
extension FHIRController {
    /// `DELETE /fhir/{type}/{id}` (`ifMatch`: an `If-Match` header): 204 with the deletion's
    /// `ETag`, also when the resource was deleted before; 404 when the token knows no such
    /// resource; 412 on a stale `If-Match`.
    func delete(type: String, id: String, access: BearerAccess, ifMatch: String?) async -> ServiceResponse {
        let prepared: PreparedWrite?
        switch await prepareDelete(type: type, id: id, access: access, ifMatch: ifMatch) {
        case .failure(let refusal): return refusal.response
        case .success(let deletion): prepared = deletion
        }
        guard let prepared else { return ServiceResponse(status: 204, contentType: Self.fhirJSON, body: []) }
        return await commitWrite(prepared)
    }

    /// Checks a delete of `type/id` for `access` without storing it: the deletion and its audit
    /// entry; nil when the resource was deleted already (nothing to write; the access is
    /// audited here); or the refusal (audited here).
    func prepareDelete(type: String, id: String, access: BearerAccess, ifMatch: String? = nil) async -> Result<PreparedWrite?, Refusal> {
        guard ResourceScope(type) != nil, Self.isValidID(id) else {
            return .failure(Refusal(response: Self.outcome(status: 404, code: "not-found", "unknown resource")))
        }
        if let refusal = Self.notStoredTypeRefusal(type) { return .failure(Refusal(response: refusal)) }
        let subject = "\(type)/\(id)"
        guard covers(access.grants, type: type, interaction: .delete) else {
            try? await auditAccess(access, resources: [subject], outcome: .minorFailure, reason: "insufficient_scope", action: "D")
            return .failure(Refusal(response: Self.outcome(status: 403, code: "forbidden", "the token's scope does not cover deleting \(type)")))
        }
        let existing: FHIRResourceRecord?
        var ended: (deletion: FHIRResourceRecord, last: FHIRResourceRecord?)?
        do {
            existing = try await store.resource(patient: access.token.patient, type: type, id: id)
            if existing == nil { ended = try await deletionEnding(type: type, id: id, patient: access.token.patient) }
        } catch {
            return .failure(Refusal(response: Self.outcome(status: 500, code: "exception", "storage failure")))
        }
        let rights: AccessRights = [.read, .delete]
        guard let existing else {
            // Deleted before, and the token may see what was deleted: nothing more to do (204),
            // unless `If-Match` names a version (none is current: 412).
            if let ended, let last = ended.last, visible(stored: last.json, type: type, interaction: rights, grants: access.grants) {
                if ifMatch != nil {
                    try? await auditAccess(access, resources: [subject], outcome: .minorFailure, reason: "precondition_failed", action: "D")
                    return .failure(Refusal(response: Self.outcome(status: 412, code: "conflict", "\(subject) is deleted; If-Match names no current version")))
                }
                do {
                    try await auditAccess(access, resources: [subject], outcome: .success, action: "D")
                } catch {
                    return .failure(Refusal(response: Self.outcome(status: 500, code: "exception", "the access could not be audited")))
                }
                return .success(nil)
            }
            try? await auditAccess(access, resources: [subject], outcome: .minorFailure, reason: "not-found", action: "D")
            return .failure(Refusal(response: Self.outcome(status: 404, code: "not-found", "\(subject) is not known")))
        }
        guard visible(stored: existing.json, type: type, interaction: rights, grants: access.grants) else {
            try? await auditAccess(access, resources: [subject], outcome: .minorFailure, reason: "not-found", action: "D")
            return .failure(Refusal(response: Self.outcome(status: 404, code: "not-found", "\(subject) is not known")))
        }
        if let ifMatch, !Self.etag(ifMatch, matches: existing.versionID) {
            try? await auditAccess(access, resources: [subject], outcome: .minorFailure, reason: "precondition_failed", action: "D")
            return .failure(Refusal(response: Self.outcome(status: 412, code: "conflict",
                                                           "If-Match \(ifMatch) does not name the current version of \(subject) (\(existing.versionID))")))
        }
        let write = FHIRResourceWrite.deletion(of: existing, at: now)
        return .success(PreparedWrite(write: write, audit: accessEntry(access, resources: [subject], outcome: .success, action: "D")))
    }

    /// The deletion that ended `type/id` in `patient`'s compartment, with the version it
    /// deleted (nil if not stored): nil when the resource's newest stored version is not a
    /// deletion (it is current, or was never stored), or the store keeps no history.
    func deletionEnding(type: String, id: String, patient: CsiGuid) async throws(TrustStoreError)
        -> (deletion: FHIRResourceRecord, last: FHIRResourceRecord?)? {
        guard let historyStore,
              let newest = try await historyStore.resourceHistory(patient: patient, type: type, id: id, after: nil, limit: 1).first,
              newest.isDeletion else { return nil }
        guard newest.versionID > 1 else { return (newest, nil) }
        return (newest, try await historyStore.resourceVersion(patient: patient, type: type, id: id, version: newest.versionID - 1))
    }

    /// A resource's version that decides whether a token may see anything of it: its current
    /// version, or for a deleted resource the version its deletion ended (nil: neither stored).
    func currentOrLastVersion(type: String, id: String, patient: CsiGuid) async throws(TrustStoreError) -> FHIRResourceRecord? {
        if let current = try await store.resource(patient: patient, type: type, id: id) { return current }
        return try await deletionEnding(type: type, id: id, patient: patient)?.last
    }

    /// The answer to a read of a deleted resource whose last version the token may read: 410
    /// Gone (audited); nil when `type/id` is not a deleted resource the token may know of.
    func goneResponse(type: String, id: String, access: BearerAccess, quirks: [CompatQuirk]) async -> ServiceResponse? {
        guard let ended = try? await deletionEnding(type: type, id: id, patient: access.token.patient), let last = ended.last,
              visible(stored: last.json, type: type, interaction: .read, grants: access.grants) else { return nil }
        try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "deleted", quirks: quirks)
        return Self.outcome(status: 410, code: "deleted", "\(type)/\(id) was deleted", headers: [("ETag", "W/\"\(ended.deletion.versionID)\"")])
    }

    /// The refusal of a write, delete, history or search of a type the server keeps no
    /// resources of: the views it builds (`Consent`, `AuditEvent`) and the Bulk Data Groups.
    static func notStoredTypeRefusal(_ type: String) -> ServiceResponse? {
        switch type {
        case "AuditEvent", "Consent": return outcome(status: 405, code: "not-supported", "\(type) is written by the server only")
        case "Group": return outcome(status: 405, code: "not-supported", "a Group is created with POST /fhir/Group for a Bulk Data export and read by id only")
        default: return nil
        }
    }

    // MARK: Groups

    /// `GET /fhir/Group/{id}`: a Group the caller's client created (`POST /fhir/Group`), as
    /// that answered it; any other id answers 404, as an unknown resource does (audited).
    func readGroup(id: String, access: BearerAccess) async -> ServiceResponse {
        let stored: StoredExportGroup?
        do {
            stored = try await store.exportGroup(id: id)
        } catch {
            return Self.outcome(status: 500, code: "exception", "storage failure")
        }
        guard let stored, stored.client == access.token.client else {
            try? await auditAccess(access, resources: ["Group/\(id)"], outcome: .minorFailure, reason: "not-found")
            return Self.outcome(status: 404, code: "not-found", "Group/\(id) is not known")
        }
        do {
            try await auditAccess(access, resources: ["Group/\(id)"], outcome: .success)
        } catch {
            return Self.outcome(status: 500, code: "exception", "the access could not be audited")
        }
        return .json(Self.groupResource(stored), contentType: Self.fhirJSON)
    }

    /// A stored Group as FHIR: `person`, `actual`, its members as `Patient/{csiGuid}`.
    static func groupResource(_ group: StoredExportGroup) -> JSONValue {
        var object = JSONObject()
        object.append("resourceType", "Group")
        object.append("id", .string(group.id))
        object.append("type", "person")
        object.append("actual", .bool(true))
        object.append("member", .array(group.members.map { patient in
            .object(JSONObject(members: [JSONMember(key: "entity", value: .object(JSONObject(members: [
                JSONMember(key: "reference", value: .string("Patient/\(patient.rawValue)")),
            ])))]))
        }))
        return .object(object)
    }
}
