import ExactJSON
import FhirBlocks
import FhirBlocksStore
import ModelsR4

/// The protected FHIR R4 endpoint under `/fhir` (§1.4 "FHIR consumption", §2.7): patient
/// compartment storage and reads, enforcing the token's scopes, confidentiality ceiling and
/// sensitivity set against each resource's `meta.security`. A resource the token may not see
/// answers exactly like an absent one.
extension FHIRController {
    /// The answer to a FHIR request without an active bearer token: 401 with
    /// `WWW-Authenticate`, before anything about the path is looked at.
    static func fhirUnauthenticated() -> ServiceResponse {
        outcome(status: 401, code: "login", "a valid bearer token is required",
                headers: [("WWW-Authenticate", "Bearer realm=\"fhir\", error=\"invalid_token\"")])
    }

    /// The answer to an authenticated request for a path under `/fhir` that no route serves,
    /// or with a method its route does not take (other than ``fhirNotPatchable()``'s): 404.
    static func unknownFHIRPath() -> ServiceResponse {
        outcome(status: 404, code: "not-found", "unknown FHIR path")
    }

    /// `PATCH /fhir/{type}/{id}` with an active token: 405.
    static func fhirNotPatchable() -> ServiceResponse {
        outcome(status: 405, code: "not-supported", "this server does not patch resources")
    }

    /// `GET /fhir/{type}/{id}`: the read by id, with the bearer token the middleware resolved
    /// (`resolved`) confirmed in the same store read as the resource
    /// (``readConfirmingBearer(type:id:resolved:)``) when it can be, else confirmed first; 401
    /// without an active token.
    /// The request's `_elements` (``FHIRResultControls``) shapes the answer.
    func readByID(type: String, id: String, resolved: BearerResolution?, request: ServiceRequest? = nil) async -> ServiceResponse {
        if let resolved, let answer = await readConfirmingBearer(type: type, id: id, resolved: resolved, request: request) { return answer }
        guard let access = await trustLedger.bearer(authorization: resolved?.header) else { return Self.fhirUnauthenticated() }
        return await read(type: type, id: id, access: access, request: request)
    }

    static let fhirJSON = "application/fhir+json"

    /// Whether any grant covers the type and interaction at all (independent of any resource;
    /// a granular scope's grant counts, its query is checked per resource by `visible`).
    func covers(_ grants: [PermissionScope], type: String, interaction: AccessRights) -> Bool {
        AccessDecision.evaluate(grants: grants.map(\.unfiltered), resourceType: type, interaction: interaction,
                                labels: SecurityLabels(confidentiality: .U, sensitivities: []), policy: configuration.labelPolicy) != .denyNoScope
    }

    func visible(_ value: JSONValue, type: String, interaction: AccessRights, grants: [PermissionScope]) -> Bool {
        permits(GranularScopes.resolve(grants, resource: value, type: type), type: type, interaction: interaction, labels: SecurityLabels(resource: value))
    }

    /// ``visible(_:type:interaction:grants:)`` for a stored resource, from its stored JSON (its
    /// labels read as ``storedLabels(_:)`` reads them; false when the JSON does not parse).
    func visible(stored json: [UInt8], type: String, interaction: AccessRights, grants: [PermissionScope]) -> Bool {
        guard let labels = Self.storedLabels(json) else { return false }
        let resolved = GranularScopes.anyFiltered(grants) ? GranularScopes.resolve(grants, resource: try? JSONParser.parse(json), type: type) : grants
        return permits(resolved, type: type, interaction: interaction, labels: labels)
    }

    private func permits(_ grants: [PermissionScope], type: String, interaction: AccessRights, labels: SecurityLabels) -> Bool {
        AccessDecision.evaluate(grants: grants, resourceType: type, interaction: interaction, labels: labels,
                                policy: configuration.labelPolicy).isPermitted
    }

    // MARK: Read

    /// A read by id whose bearer token the middleware resolved (``BearerResolution``): the
    /// ledger's version and the resource come from one store read, and the version confirms
    /// the resolution. Nil when that does not apply (no active token resolved, an id that is
    /// not a plain one, or a ledger that moved since): the caller then confirms the token
    /// first and reads as usual. Nothing read is disclosed before the usual checks pass.
    func readConfirmingBearer(type: String, id: String, resolved: BearerResolution, request: ServiceRequest? = nil) async -> ServiceResponse? {
        guard let access = resolved.access,
              ResourceScope(type) != nil, Self.isValidID(id), !(id == "fbcFhirId" && type == "Patient" && configuration.mode == .compat),
              let fetched = try? await store.ledgerVersionAndResource(patient: access.token.patient, type: type, id: id),
              fetched.ledgerVersion == resolved.ledgerVersion else { return nil }
        return await read(type: type, id: id, access: access, fetched: fetched, request: request)
    }

    /// Reads `type/id` for `access` (with the resource already `fetched` from the store, when
    /// it was, for the token's compartment).
    /// `request` (when given) brings the read's `_elements`.
    func read(type: String, id: String, access: BearerAccess, fetched: LedgerVersionAndResource? = nil, request: ServiceRequest? = nil) async
        -> ServiceResponse {
        guard ResourceScope(type) != nil, Self.isValidID(id) else {
            return Self.outcome(status: 404, code: "not-found", "unknown resource")
        }
        if type == "Group" { return await readGroup(id: id, access: access) }
        // A backend token reads in the compartments of the patients that granted its client.
        if isSystemAccess(access) { return await systemRead(type: type, id: id, access: access, request: request) }
        var controls = FHIRResultControls()
        if let request, !request.rawQuery.isEmpty {
            do {
                let parameters = try FormBody.parse(Array(request.rawQuery.utf8), mode: .strict, repeatsAllowed: true).value.fields
                controls = try FHIRResultControls(type: type, parameters: parameters, search: false)
            } catch {
                return Self.outcome(status: 400, code: "not-supported", "\(error)")
            }
        }
        guard covers(access.grants, type: type, interaction: .read) else {
            try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "insufficient_scope")
            return Self.outcome(status: 403, code: "forbidden", "the token's scope does not cover reading \(type)")
        }
        var quirks = access.quirks
        var record: FHIRResourceRecord?
        do {
            if id == "fbcFhirId", type == "Patient", configuration.mode == .compat {
                quirks.append(.fbcFhirIdAlias)
                record = try await store.resources(patient: access.token.patient, type: "Patient").first
            } else {
                if let fetched {
                    record = fetched.resource
                } else {
                    record = try await store.resource(patient: access.token.patient, type: type, id: id)
                }
                // The token response's `patient` is the wallet's csiGuid, so SMART clients read
                // `Patient/<csiGuid>`: that is the compartment's Patient resource.
                if record == nil, type == "Patient", CsiGuid(id) == access.token.patient {
                    record = try await store.resources(patient: access.token.patient, type: "Patient").first
                }
            }
        } catch {
            return Self.outcome(status: 500, code: "exception", "storage failure")
        }
        guard let record, record.patient == access.token.patient,
              visible(stored: record.json, type: type, interaction: .read, grants: access.grants) else {
            // A deleted resource whose last version the token may read: 410.
            if record == nil, let gone = await goneResponse(type: type, id: id, access: access, quirks: quirks) { return gone }
            try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "not-found", quirks: quirks)
            return Self.outcome(status: 404, code: "not-found", "\(type)/\(id) is not known")
        }
        // Nothing is disclosed unless its audit entry is stored.
        do {
            try await auditAccess(access, resources: ["\(type)/\(record.id)"], outcome: .success, quirks: quirks)
        } catch {
            return Self.outcome(status: 500, code: "exception", "the access could not be audited")
        }
        let headers = Self.versionHeaders(record)
        if let tags = request?.headers["if-none-match"], Self.etag(tags, matches: record.versionID) {
            return ServiceResponse(status: 304, contentType: Self.fhirJSON, headers: headers, body: [])
        }
        var body = record.json
        if let elements = controls.elements {
            guard let subset = FHIRResultControls.subset(record.json, elements: elements) else {
                return Self.outcome(status: 500, code: "exception", "stored data cannot be read")
            }
            body = subset
        }
        return ServiceResponse(contentType: Self.fhirJSON, headers: headers, body: body)
    }

    /// The security labels of a stored resource's JSON (nil when it does not parse). Bytes with
    /// neither `security` nor a backslash in them cannot hold a `meta.security` member, spelled
    /// plainly or with escapes, so they are not parsed: such a resource has no labels. (Stored
    /// JSON is this server's own serialization, see ``write(type:id:body:access:)``.)
    static func storedLabels(_ json: [UInt8]) -> SecurityLabels? {
        if !mayHoldSecurityMember(json) { return SecurityLabels(confidentiality: nil, sensitivities: []) }
        guard let value = try? JSONParser.parse(json) else { return nil }
        return SecurityLabels(resource: value)
    }

    /// Whether the bytes contain a backslash or the word `security`: one pass.
    private static func mayHoldSecurityMember(_ json: [UInt8]) -> Bool {
        json.withUnsafeBufferPointer { bytes in
            let word: StaticString = "security"
            let length = word.utf8CodeUnitCount
            let letters = word.utf8Start
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\\") { return true }
                if byte == letters[0], bytes.count - index >= length {
                    var matched = 1
                    while matched < length, bytes[index + matched] == letters[matched] { matched += 1 }
                    if matched == length { return true }
                }
                index += 1
            }
            return false
        }
    }

    // MARK: Search

    func search(type: String, request: ServiceRequest, access: BearerAccess) async -> ServiceResponse {
        guard ResourceScope(type) != nil else { return Self.outcome(status: 404, code: "not-found", "unknown resource type") }
        if type == "Group", let refusal = Self.notStoredTypeRefusal(type) { return refusal }
        // A backend token searches the compartment of a patient that granted its client.
        if isSystemAccess(access), type != "Consent", type != "AuditEvent" { return await systemSearch(type: type, request: request, access: access) }
        guard covers(access.grants, type: type, interaction: .search) else {
            try? await auditAccess(access, resources: [type], outcome: .minorFailure, reason: "insufficient_scope")
            return Self.outcome(status: 403, code: "forbidden", "the token's scope does not cover searching \(type)")
        }
        if type != "Consent", type != "AuditEvent" { return await searchStored(type: type, request: request, access: access) }
        if type == "AuditEvent", AuditEventPaging.isPaged(request.query) { return await auditEventSearchPage(request: request, access: access) }
        var matches: [JSONValue] = []
        if let patientParameter = request.query["patient"] ?? request.query["subject"],
           !(await isTokenPatient(patientParameter, patient: access.token.patient, grants: access.grants)) {
            // Another patient's compartment: nothing to see (as if empty).
        } else {
            switch type {
            case "Consent":
                // The patient's wallet sees every permission about it; a grantee only those it
                // granted or received, not the other grantees'.
                let client = access.token.client
                let isPatient = trustLedger.isOwnerToken(access)
                let permissions = ledger.permissions.values
                    .filter { $0.patient == access.token.patient && (isPatient || $0.grantee == client || $0.grantor == client) }
                    .sorted { $0.grantedAt < $1.grantedAt }
                let instant = now
                let ledger = self.ledger
                for permission in permissions {
                    let active = (try? ledger.effective(permission.id, at: instant)) != nil
                    matches.append(ConsentBuilder.consent(for: permission, active: active))
                }
            case "AuditEvent":
                matches = await auditEvents(patient: access.token.patient, reader: trustLedger.auditReader(access))
            default:
                break   // stored resources: searchStored (TrustService+Search.swift)
            }
        }
        let visibleMatches = matches.filter { visible($0, type: type, interaction: .search, grants: access.grants) }
        let references = visibleMatches.compactMap { value -> String? in value.objectValue?["id"]?.stringValue.map { "\(type)/\($0)" } }
        do {
            try await auditAccess(access, resources: references.isEmpty ? [type] : references, outcome: .success)
        } catch {
            return Self.outcome(status: 500, code: "exception", "the access could not be audited")
        }
        var bundle = JSONObject()
        bundle.append("resourceType", "Bundle")
        bundle.append("type", "searchset")
        bundle.append("total", .number(String(visibleMatches.count)))
        let base = baseURL
        bundle.append("entry", .array(visibleMatches.map { value in
            var entry = JSONObject()
            if let id = value.objectValue?["id"]?.stringValue { entry.append("fullUrl", "\(base)/fhir/\(type)/\(id)") }
            entry.append("resource", value)
            entry.append("search", .object(JSONObject(members: [JSONMember(key: "mode", value: .string("match"))])))
            return .object(entry)
        }))
        return .json(.object(bundle), contentType: Self.fhirJSON)
    }

    /// Whether a `patient` search parameter names the token's patient (its csiGuid, or the id
    /// of a Patient resource in its compartment the token may see, with or without `Patient/`).
    func isTokenPatient(_ parameter: String, patient: CsiGuid, grants: [PermissionScope]) async -> Bool {
        let id = parameter.hasPrefix("Patient/") ? String(parameter.dropFirst(8)) : parameter
        if CsiGuid(id) == patient { return true }
        guard let stored = try? await store.resource(patient: patient, type: "Patient", id: id) else { return false }
        // A Patient the token may not see answers as an unknown id: one its grants do not let it
        // read, when they cover Patient; else (a scope of other types, e.g. a health card's
        // Immunization) one whose labels are beyond every grant's ceiling.
        if covers(grants, type: "Patient", interaction: .read) {
            return visible(stored: stored.json, type: "Patient", interaction: .read, grants: grants)
        }
        guard let labels = Self.storedLabels(stored.json) else { return false }
        let confidentiality = labels.confidentiality ?? configuration.labelPolicy.unlabelledConfidentiality
        return grants.contains { grant in
            confidentiality <= grant.confidentialityCeiling && labels.sensitivities.allSatisfy(grant.sensitivities.contains)
        }
    }

    /// The audit entries about `patient` that `reader` may see, as AuditEvents.
    func auditEvents(patient: CsiGuid, reader: AuditReader) async -> [JSONValue] {
        var events: [JSONValue] = []
        var from = 0
        while let page = try? await store.auditRecords(from: from, limit: 1000), !page.isEmpty {
            for record in page {
                guard let entry = try? AuditEntry(canonicalBytes: record.canonicalBytes), entry.patient == patient.rawValue,
                      reader.maySee(entry) else { continue }
                guard case .object(var event) = entry.auditEvent(observer: baseURL) else { continue }
                event["id"] = .string("log-\(record.index)")
                event["extension"] = .array([.object(JSONObject(members: [
                    JSONMember(key: "url", value: .string("https://openhealthkit.org/fhir/StructureDefinition/fhirblocks-log-index")),
                    JSONMember(key: "valueInteger", value: .number(String(record.index))),
                ]))])
                events.append(.object(event))
            }
            from = (page.last?.index ?? from) + 1
        }
        return events
    }

    // MARK: Write

    /// Checks a create (`pathID` nil) or update of `type` with `body` for `access`, as
    /// ``write(type:id:body:access:ifMatch:)`` stores it, without storing it: the write and
    /// its audit entry, or the refusal (refusals are audited here).
    /// `assignedID` is the id a create (`pathID` nil) takes, when the caller chose it (a
    /// transaction's `urn:uuid` entries); otherwise a random one.
    func prepareWrite(type: String, id pathID: String?, body: [UInt8], access: BearerAccess, ifMatch: String? = nil, assignedID: String? = nil) async
        -> Result<PreparedWrite, Refusal> {
        guard ResourceScope(type) != nil else {
            return .failure(Refusal(response: Self.outcome(status: 404, code: "not-found", "unknown resource type")))
        }
        if let refusal = Self.notStoredTypeRefusal(type) { return .failure(Refusal(response: refusal)) }
        // PUT may create or update, so it needs both; POST creates.
        let needed: AccessRights = pathID == nil ? .create : [.create, .update]
        let attempted = pathID == nil ? "C" : "U"
        guard covers(access.grants, type: type, interaction: needed) else {
            try? await auditAccess(access, resources: [pathID.map { "\(type)/\($0)" } ?? type], outcome: .minorFailure, reason: "insufficient_scope",
                                   action: attempted)
            return .failure(Refusal(response: Self.outcome(status: 403, code: "forbidden", "the token's scope does not cover writing \(type)")))
        }
        guard case .object(var object)? = try? JSONParser.parse(body, maximumDepth: 64) else {
            return .failure(Refusal(response: Self.outcome(status: 400, code: "structure", "the body is not a JSON object")))
        }
        guard object["resourceType"]?.stringValue == type else {
            return .failure(Refusal(response: Self.outcome(status: 400, code: "invalid", "resourceType must be \(type)")))
        }
        let id: String
        if let pathID {
            guard Self.isValidID(pathID) else {
                return .failure(Refusal(response: Self.outcome(status: 400, code: "invalid", "the id is not a FHIR id")))
            }
            if let bodyID = object["id"]?.stringValue, bodyID != pathID {
                return .failure(Refusal(response: Self.outcome(status: 400, code: "invalid", "the body's id differs from the URL's")))
            }
            id = pathID
        } else {
            id = assignedID ?? newResourceID()
        }
        object["id"] = .string(id)
        let errors = FHIRValidator().validate(.object(object)).filter { $0.severity == .error }
        guard errors.isEmpty else {
            let text = errors.prefix(20).map(\.description).joined(separator: "; ")
            return .failure(Refusal(response: Self.outcome(status: 422, code: "processing", text)))
        }
        let existing: FHIRResourceRecord?
        // A client-chosen id may name a deleted resource: written again, it takes the version after the deletion.
        var deletion: FHIRResourceRecord?
        do {
            existing = try await store.resource(patient: access.token.patient, type: type, id: id)
            if existing == nil, pathID != nil { deletion = try await deletionEnding(type: type, id: id, patient: access.token.patient)?.deletion }
        } catch {
            return .failure(Refusal(response: Self.outcome(status: 500, code: "exception", "storage failure")))
        }
        let interaction: AccessRights = existing == nil ? .create : .update
        // The token must be allowed the new version's labels, and, to replace a version, that
        // version's labels too (it may not overwrite what it may not see).
        let existingVisible = existing.map { visible(stored: $0.json, type: type, interaction: [.read, .update], grants: access.grants) } ?? true
        // A PUT to an id a grantee cannot see must not tell a hidden resource from a missing
        // one, so a grantee may not create with a client-chosen id: both answer 405, FHIR's
        // answer when update-as-create is not allowed, and the grantee creates with POST. The
        // patient's own wallet keeps update-as-create (nothing of its own is kept from it).
        if pathID != nil, existing == nil || !existingVisible, !trustLedger.isOwnerToken(access) {
            try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "update_create_not_allowed", action: attempted)
            return .failure(Refusal(response: Self.outcome(status: 405, code: "not-supported",
                                "a grantee may not create a \(type) with a client-chosen id; create it with POST")))
        }
        guard visible(.object(object), type: type, interaction: interaction, grants: access.grants), existingVisible else {
            try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "insufficient_labels", action: attempted)
            return .failure(Refusal(response: Self.outcome(status: 403, code: "forbidden",
                                                           "the token may not write this \(type) with these security labels")))
        }
        if let ifMatch, !(existing.map { Self.etag(ifMatch, matches: $0.versionID) } ?? false) {
            try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "precondition_failed", action: attempted)
            let stored = existing.map { " (\($0.versionID))" } ?? ""
            return .failure(Refusal(response: Self.outcome(status: 412, code: "conflict",
                                                           "If-Match \(ifMatch) does not name the current version of \(type)/\(id)" + stored)))
        }
        let instant = now
        let version = (existing?.versionID ?? deletion?.versionID ?? 0) + 1
        var meta = object["meta"]?.objectValue ?? JSONObject()
        meta["versionId"] = .string(String(version))
        meta["lastUpdated"] = .string(instant.wireText)
        object["meta"] = .object(meta)
        let json = JSONWriter.serialize(.object(object))
        // The writer is kept with the version: a card is signed only for what a card source wrote.
        let write = FHIRResourceWrite(record: FHIRResourceRecord(type: type, id: id, patient: access.token.patient, versionID: version,
                                                                 lastUpdated: instant, json: json),
                                      writer: access.token.client, followsDeletion: existing == nil && deletion != nil)
        return .success(PreparedWrite(write: write, audit: accessEntry(access, resources: ["\(type)/\(id)"], outcome: .success,
                                                                       action: existing == nil ? "C" : "U")))
    }

    /// A random resource id (a csiGuid's form).
    func newResourceID() -> String {
        random { generator in CsiGuid(randomBytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).rawValue }
    }

    /// A create or update checked and ready to commit, with its audit entry.
    struct PreparedWrite: Sendable {
        var write: FHIRResourceWrite
        var audit: PendingAuditEntry
        var record: FHIRResourceRecord { write.record }
        var created: Bool { write.record.versionID == 1 || write.followsDeletion }
    }

    /// The answer to a stored write: 201 or 200, the resource, `Location`, `ETag`, `Last-Modified`;
    /// to a deletion 204 with the deletion's `ETag`.
    func writeResponse(_ prepared: PreparedWrite) -> ServiceResponse {
        let record = prepared.record
        if record.isDeletion { return ServiceResponse(status: 204, contentType: Self.fhirJSON, headers: [("ETag", "W/\"\(record.versionID)\"")], body: []) }
        return ServiceResponse(status: prepared.created ? 201 : 200, contentType: Self.fhirJSON,
                               headers: [("Location", "\(baseURL)/fhir/\(record.type)/\(record.id)")] + Self.versionHeaders(record), body: record.json)
    }

    /// `ifMatch` (an `If-Match` header): the update goes ahead only when it names the stored
    /// version (``etag(_:matches:)``), else 412.
    func write(type: String, id pathID: String?, body: [UInt8], access: BearerAccess, ifMatch: String? = nil) async -> ServiceResponse {
        let prepared: PreparedWrite
        switch await prepareWrite(type: type, id: pathID, body: body, access: access, ifMatch: ifMatch) {
        case .failure(let refusal): return refusal.response
        case .success(let write): prepared = write
        }
        return await commitWrite(prepared)
    }

    /// Commits a checked write or deletion with its audit entry (one transaction) and answers
    /// it (``writeResponse(_:)``): 409 when the resource was written concurrently (the store's
    /// `conflict`), 500 when the store failed otherwise.
    func commitWrite(_ prepared: PreparedWrite) async -> ServiceResponse {
        var change = TrustChange()
        change.resources = [prepared.write]
        change.auditEntries = [prepared.audit]
        let record = prepared.record
        do {
            try await storeCommit(change)
        } catch .conflict {
            return Self.outcome(status: 409, code: "conflict", "\(record.type)/\(record.id) was written concurrently; retry")
        } catch {
            return Self.outcome(status: 500, code: "exception", "the resource could not be \(record.isDeletion ? "deleted" : "stored")")
        }
        return writeResponse(prepared)
    }

    // MARK: Audit and outcomes

    func accessEntry(_ access: BearerAccess, resources: [String], outcome: AuditOutcome, reason: String? = nil, quirks: [CompatQuirk] = [],
                     action: String? = nil) -> PendingAuditEntry {
        PendingAuditEntry(entry: AuditEntry(type: .fhirAccess, recorded: now, outcome: outcome, agent: access.token.client.rawValue,
                                            patient: access.token.patient.rawValue, permissionIDs: access.token.permissionIDs.map(\.rawValue),
                                            tokenID: access.token.id, resources: resources, scope: access.scopeText,
                                            quirks: (access.quirks + quirks).sortedUnique, reason: reason, action: action))
    }

    /// Appends the access's audit entry. Successful accesses answer only once it is stored
    /// (callers turn a failure into 500); refusals call it with `try?`.
    func auditAccess(_ access: BearerAccess, resources: [String], outcome: AuditOutcome, reason: String? = nil, quirks: [CompatQuirk] = [],
                     action: String? = nil) async throws(SMOACError) {
        var change = TrustChange()
        change.auditEntries = [accessEntry(access, resources: resources, outcome: outcome, reason: reason, quirks: quirks, action: action)]
        do {
            try await commit(change)
        } catch {
            logger.error("audit of a FHIR access failed", metadata: ["reason": "\(error.errorCode)"])
            throw error
        }
    }

    /// An `OperationOutcome` response.
    static func outcome(status: Int, code: String, _ diagnostics: String, headers: [(String, String)] = []) -> ServiceResponse {
        var issue = JSONObject()
        issue.append("severity", status >= 500 ? "fatal" : "error")
        issue.append("code", code)
        issue.append("diagnostics", diagnostics)
        var outcome = JSONObject()
        outcome.append("resourceType", "OperationOutcome")
        outcome.append("issue", .array([.object(issue)]))
        return .json(.object(outcome), status: status, contentType: fhirJSON, headers: headers)
    }

    /// FHIR `id`: `[A-Za-z0-9\-\.]{1,64}`.
    static func isValidID(_ text: String) -> Bool {
        let utf8 = text.utf8
        return (1...64).contains(utf8.count) && utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }
}
