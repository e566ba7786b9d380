import FhirBlocks
import FhirBlocksStore

/// Plain REST reads with a SMART Backend Services token (`system/` scopes, see
/// ``BackendServices``): the token stands for the client, whose own compartment holds nothing,
/// so a read by id looks in the compartments of the patients whose wallets granted the client,
/// and a search naming one of them (`patient=` or `subject=` its csiGuid) runs in that patient's
/// compartment. Each is checked, filtered and audited as the same request of a token of the
/// patient's grants (the token's `system/` scopes read as `patient/`, as a Bulk Data export reads
/// them), the audit entry naming the patient and the backend token. A resource no granting
/// patient holds (or the token may not see) answers 404 as an absent one does; a search naming
/// another patient answers an empty Bundle, as a patient token's does. `vread`, the instance
/// `_history` and `Patient/{id}/$everything` go the same way as the read by id. The granting
/// patients that hold an id are found in one store read (``ResourceStore/resourceHolders(type:id:among:)``),
/// not one per granting patient; a copy the token may not see counts as absent, and when two or
/// more granting patients hold a copy it may see the answer is 409 (`patient=` search names one). A search or a
/// type `_history` that names no patient is 400 (audited as refused, `patient-required`): it is
/// not run across every granting patient, whose pages would have to be merged (with `_sort`,
/// `_include` and `_summary=count`) under one cursor; `Patient/$export` reads them all.
extension FHIRController {
    /// Whether `access` is a backend client's token: it stands for the client, through `system/` grants only.
    func isSystemAccess(_ access: BearerAccess) -> Bool {
        access.token.client == access.token.patient && access.token.permissionIDs.isEmpty && !access.grants.isEmpty
            && access.grants.allSatisfy { $0.permissionType == .system }
    }

    /// Whether a backend token's scope covers `interaction` on `type` at all (its `system/` grants read as `patient/`).
    func systemCovers(_ access: BearerAccess, type: String, interaction: AccessRights) -> Bool {
        covers(access.grants.map { grant in
            var scope = grant
            scope.permissionType = .patient
            return scope
        }, type: type, interaction: interaction)
    }

    /// What a backend token grants over `patient`'s data now (nil when nothing):
    /// ``TrustService/BearerAccess/backend(client:tokenID:scopeText:patient:issuedAt:expiresAt:quirks:ledger:at:policy:)``.
    func patientAccess(_ access: BearerAccess, patient: CsiGuid) -> BearerAccess? {
        .backend(client: access.token.client, tokenID: access.token.id, scopeText: access.scopeText, patient: patient, issuedAt: access.token.issuedAt,
                 expiresAt: access.token.expiresAt, quirks: access.quirks, ledger: ledger, at: now, policy: configuration.labelPolicy)
    }

    /// The patients whose wallets grant the backend token's client something now, in csiGuid order.
    func grantingPatients(_ access: BearerAccess) -> [CsiGuid] {
        let held = ledger.held(by: access.token.client, at: now).filter { $0.scope != .auditor && $0.patient != access.token.client }
        return Set(held.map(\.patient)).sorted { $0.rawValue < $1.rawValue }
    }

    /// A backend token's read of `type/id`: the read of the one granting patient's compartment
    /// that holds it (or held it before a deletion: then 410, as to the patient's token) visibly
    /// to the token, as that patient's grants read it; 409 when more than one does; else 404,
    /// audited.
    func systemRead(type: String, id: String, access: BearerAccess, request: ServiceRequest?) async -> ServiceResponse {
        guard systemCovers(access, type: type, interaction: .read) else {
            try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "insufficient_scope")
            return Self.outcome(status: 403, code: "forbidden", "the token's scope does not cover reading \(type)")
        }
        let holders: [BearerAccess]
        do {
            holders = try await systemHolders(type: type, id: id, access: access, compartmentPatient: true)
        } catch {
            return Self.outcome(status: 500, code: "exception", "storage failure")
        }
        if holders.count > 1 { return await systemAmbiguous(type: type, id: id, access: access) }
        if let holder = holders.first { return await read(type: type, id: id, access: holder, request: request) }
        try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "not-found")
        return Self.outcome(status: 404, code: "not-found", "\(type)/\(id) is not known")
    }

    /// The accesses (one per granting patient, in csiGuid order) of the granting patients whose
    /// compartments hold `type/id` now, or as its last version before a deletion, visibly to the
    /// backend token as that patient's grants read it; with `compartmentPatient`, also the
    /// granting patient whose csiGuid `id` is when `type` is `Patient` and it stores no hidden
    /// Patient of that id. One store read finds the holders among every granting patient
    /// (``ResourceStore/resourceHolders(type:id:among:)``); then one or two per holder. A copy
    /// the token may not see is left out as if absent, so it changes no answer.
    func systemHolders(type: String, id: String, access: BearerAccess, compartmentPatient: Bool) async throws(TrustStoreError) -> [BearerAccess] {
        let granting = grantingPatients(access)
        guard !granting.isEmpty else { return [] }
        var candidates = try await store.resourceHolders(type: type, id: id, among: granting)
        let named = compartmentPatient && type == "Patient" ? CsiGuid(id).flatMap { granting.contains($0) ? $0 : nil } : nil
        if let named, !candidates.contains(named) { candidates.append(named) }
        var holders: [BearerAccess] = []
        for patient in candidates.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let perPatient = patientAccess(access, patient: patient) else { continue }
            if let current = try await currentOrLastVersion(type: type, id: id, patient: patient) {
                guard visible(stored: current.json, type: type, interaction: .read, grants: perPatient.grants) else { continue }
            } else if patient != named {
                continue
            }
            holders.append(perPatient)
        }
        return holders
    }

    /// The 409 of a backend token's read (vread, history, `$everything`) of an id that more than
    /// one granting patient's compartment holds visibly to it, audited as refused (`ambiguous`):
    /// ids are scoped by compartment, and the token names one with a `patient=` search.
    func systemAmbiguous(type: String, id: String, access: BearerAccess) async -> ServiceResponse {
        try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "ambiguous")
        return Self.outcome(status: 409, code: "conflict", "\(type)/\(id) is held by more than one patient that granted the client: search "
            + "\(type) with patient= (or subject=) the csiGuid of one, and _id=\(id)")
    }

    /// A backend token's search of a stored type: in the compartment of the granting patient it
    /// names (``systemSearchAccess(_:access:)``); any other is an empty Bundle (the token's own
    /// compartment holds nothing; another patient's is refused, and audited so). 403 when the
    /// token's scope does not cover searching the type.
    func systemSearch(type: String, request: ServiceRequest, access: BearerAccess) async -> ServiceResponse {
        guard systemCovers(access, type: type, interaction: .search) else {
            try? await auditAccess(access, resources: [type], outcome: .minorFailure, reason: "insufficient_scope")
            return Self.outcome(status: 403, code: "forbidden", "the token's scope does not cover searching \(type)")
        }
        if let perPatient = systemSearchAccess(request, access: access) { return await search(type: type, request: request, access: perPatient) }
        if request.query["patient"] == nil, request.query["subject"] == nil { return await patientRequired(type, access: access, what: "search") }
        return await searchStored(type: type, request: request, access: access)
    }

    /// The 400 of a backend token's search or type history that names no patient, audited as refused.
    func patientRequired(_ type: String, access: BearerAccess, what: String) async -> ServiceResponse {
        try? await auditAccess(access, resources: [type], outcome: .minorFailure, reason: "patient-required")
        return Self.outcome(status: 400, code: "required", "a backend token's \(what) of \(type) must name one patient: search with patient= (or "
            + "subject=) the csiGuid of a patient that granted the client, or read them all with Patient/$export")
    }

    /// A backend token's `vread` (`version` given) or instance `_history` of `type/id`: that of
    /// the one granting patient whose compartment holds it (``systemHolders(type:id:access:compartmentPatient:)``);
    /// 409 when more than one does; else 404 as an absent resource's, audited as refused.
    func systemVersions(type: String, id: String, version: String?, request: ServiceRequest?, access: BearerAccess) async -> ServiceResponse {
        guard systemCovers(access, type: type, interaction: .read) else {
            try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "insufficient_scope")
            return Self.outcome(status: 403, code: "forbidden", "the token's scope does not cover reading \(type)")
        }
        let holders: [BearerAccess]
        do {
            holders = try await systemHolders(type: type, id: id, access: access, compartmentPatient: false)
        } catch {
            return Self.outcome(status: 500, code: "exception", "storage failure")
        }
        if holders.count > 1 { return await systemAmbiguous(type: type, id: id, access: access) }
        if let holder = holders.first {
            if let version { return await vread(type: type, id: id, version: version, access: holder) }
            if let request { return await history(type: type, id: id, request: request, access: holder) }
        }
        try? await auditAccess(access, resources: ["\(type)/\(id)"], outcome: .minorFailure, reason: "not-found")
        return Self.outcome(status: 404, code: "not-found", version.map { "\(type)/\(id)/_history/\($0) is not known" } ?? "\(type)/\(id) is not known")
    }

    /// A backend token's `Patient/{id}/$everything`: that of the granting patient `patientID`
    /// names — its csiGuid, decided without a store read, or else the id of a Patient resource
    /// in its compartment the token may see, found among every granting patient in one store read
    /// (``ResourceStore/resourceHolders(type:id:among:)``) — as its grants read it; 409 when
    /// Patients of more than one granting patient have that id; else 404 as an unknown
    /// patient's, audited as refused. A storage failure is 500.
    func systemEverything(patientID: String, request: ServiceRequest, access: BearerAccess) async -> ServiceResponse {
        let granting = grantingPatients(access)
        var holders: [BearerAccess] = []
        if let patient = CsiGuid(patientID), granting.contains(patient) {
            if let perPatient = patientAccess(access, patient: patient) { holders.append(perPatient) }
        } else if !granting.isEmpty {
            do {
                for patient in try await store.resourceHolders(type: "Patient", id: patientID, among: granting) {
                    guard let perPatient = patientAccess(access, patient: patient),
                          let stored = try await store.resource(patient: patient, type: "Patient", id: patientID),
                          visible(stored: stored.json, type: "Patient", interaction: .read, grants: perPatient.grants) else { continue }
                    holders.append(perPatient)
                }
            } catch {
                return Self.outcome(status: 500, code: "exception", "storage failure")
            }
        }
        if holders.count > 1 { return await systemAmbiguous(type: "Patient", id: patientID, access: access) }
        if let holder = holders.first { return await everything(patientID: patientID, request: request, access: holder) }
        try? await auditAccess(access, resources: ["Patient/\(patientID)"], outcome: .minorFailure, reason: "not-found")
        return Self.outcome(status: 404, code: "not-found", "Patient/\(patientID) is not known")
    }

    /// The access a backend token's search runs with: that of the granting patient its `patient`
    /// (or `subject`) parameter names by csiGuid (`Patient/` prefixed or not); nil otherwise.
    func systemSearchAccess(_ request: ServiceRequest, access: BearerAccess) -> BearerAccess? {
        guard let parameter = request.query["patient"] ?? request.query["subject"] else { return nil }
        let id = parameter.hasPrefix("Patient/") ? String(parameter.dropFirst(8)) : parameter
        // patientAccess is nil for a patient that grants the client nothing (or is the client).
        return CsiGuid(id).flatMap { patientAccess(access, patient: $0) }
    }
}
