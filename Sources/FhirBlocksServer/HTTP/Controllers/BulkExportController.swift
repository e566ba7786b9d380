import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksStore
import HTTPTypes
import Hummingbird
import NIOCore

/// Bulk Data export (Bulk Data Access IG v2), every route behind ``BearerAuthenticationMiddleware``
/// with the `required` policy (401 without an active token):
///
/// | path | GET | DELETE |
/// |---|---|---|
/// | `/fhir/Patient/$export` | kick-off: the patients whose wallets granted the client (a patient-bound token: its patient only) | – |
/// | `/fhir/$export` | kick-off, the server's auditors only (403 otherwise): the same patients | – |
/// | `/fhir/Group/{id}/$export` | kick-off: the Group's patients that granted the client (patient-bound: its own; 404 unknown, 403 another's Group) | – |
/// | `/fhir/Group` (POST) | a Group of patients that granted the client, for its export (``createGroup(_:access:)``) | – |
/// | `/bulk-export/{job}` | status: 202 with `X-Progress` and `Retry-After`, then 200 with the manifest | cancel: the job and its files deleted (202) |
/// | `/bulk-export/{job}/{Type}.ndjson` | one file, `application/fhir+ndjson`, streamed a piece at a time from the store (SQLite: from disk) | – |
///
/// A server sends at most ``ServerConfiguration/maximumExportDownloads`` files at once
/// (``ExportDownloads``); a download past that is answered 503 with `Retry-After` and an
/// OperationOutcome (`throttled`).
///
/// `%24export` (the `$` percent-encoded) is answered as `$export`.
///
/// A kick-off needs a token with a `system/` or `patient/` scope that reads (403 otherwise),
/// `Prefer: respond-async` (and an `Accept`, when sent, of FHIR JSON); it
/// answers 202 with `Content-Location` (the status URL). Its parameters are
/// ``BulkExportParameters``'s: an unsupported one is refused with 400, or under
/// `Prefer: handling=lenient` ignored and named in the 202's OperationOutcome. The job is
/// stored (``ExportStore``), so any server on the same database answers its status and files,
/// and it is run by ``BulkExportRunner``. A job, its status and its files are the asking
/// client's only: any other token gets 404.
struct BulkExportController: TrustEndpoints {
    /// The jobs, their files and the Groups they export.
    let store: any ExportStore
    /// The ledger (whose patients a client may export) and token cache.
    let trustLedger: TrustLedger
    /// The committer (its base URL names the status and file URLs).
    let committer: ChangeCommitter
    /// Runs the jobs on this server.
    let runner: BulkExportRunner
    /// The cap on the files this server sends at once (``ServerConfiguration/maximumExportDownloads``).
    let downloads: ExportDownloads

    init(store: any ExportStore, trustLedger: TrustLedger, committer: ChangeCommitter, runner: BulkExportRunner) {
        self.store = store
        self.trustLedger = trustLedger
        self.committer = committer
        self.runner = runner
        downloads = ExportDownloads(limit: trustLedger.configuration.maximumExportDownloads)
    }

    /// The controller over `service`'s components, with a runner of its own.
    init(service: TrustService) {
        self.init(store: service.store, trustLedger: service.trustLedger, committer: service.committer,
                  runner: BulkExportRunner(store: service.store, trustLedger: service.trustLedger, committer: service.committer,
                                           fhir: FHIRController(service: service)))
    }

    /// The manifest's and the files' media types.
    static let ndjson = "application/fhir+ndjson"

    /// The kick-off routes, to add at `/fhir`.
    var kickoffRoutes: RouteCollection<FhirBlocksRequestContext> {
        let routes = RouteCollection(context: FhirBlocksRequestContext.self)
        let group = protected(routes)
        let controller = self
        // `$` percent-encoded (`%24export`) is the same operation.
        for name in ["$export", "%24export"] {
            group.get(RouterPath("Patient/" + name)) { request, context in await controller.kickoff(request, context, kind: "patient") }
            group.get(RouterPath(name)) { request, context in await controller.kickoff(request, context, kind: "system") }
            group.get(RouterPath("Group/{group}/" + name)) { request, context in
                await controller.kickoff(request, context, kind: "group/" + (context.parameters.get("group") ?? ""))
            }
        }
        group.post("Group") { request, context in
            guard let access = context.access else { return FhirBlocksRouter.bridge(FHIRController.fhirUnauthenticated()) }
            return try await FhirBlocksRouter.handle(request, context: context, limit: Self.maximumGroupBody) {
                await controller.createGroup($0, access: access)
            }
        }
        return routes
    }

    /// The status and file routes, to add at `/bulk-export`.
    var jobRoutes: RouteCollection<FhirBlocksRequestContext> {
        let routes = RouteCollection(context: FhirBlocksRequestContext.self)
        let group = protected(routes)
        let controller = self
        group.get("{job}") { _, context in await controller.status(context) }
        group.delete("{job}") { _, context in await controller.cancel(context) }
        group.get("{job}/{file}") { _, context in await controller.file(context) }
        return routes
    }

    private func protected(_ routes: RouteCollection<FhirBlocksRequestContext>) -> RouterGroup<FhirBlocksRequestContext> {
        routes.group().add(middleware: BearerAuthenticationMiddleware(
            ledger: trustLedger, policy: .required(refusal: FHIRController.fhirUnauthenticated(), bodyLimit: configuration.maximumBodySize)))
    }

    // MARK: Kick-off

    func kickoff(_ request: Request, _ context: FhirBlocksRequestContext, kind: String) async -> Response {
        guard let access = context.access else { return FhirBlocksRouter.bridge(FHIRController.fhirUnauthenticated()) }
        // A refused kick-off is audited as refused (the FHIR endpoint's entry, of the operation asked for).
        let operation = kind == "system" ? "$export" : kind == "patient" ? "Patient/$export" : "Group/\(kind.dropFirst(6))/$export"
        guard Self.allowsExport(scope: access.scopeText) else {
            try? await runner.fhir.auditAccess(access, resources: [operation], outcome: .minorFailure, reason: "insufficient_scope")
            return Self.outcome(403, "forbidden", "a kick-off needs a system/ or patient/ scope that reads resources")
        }
        let prefer = Self.header(request, "prefer").lowercased()
        guard prefer.contains("respond-async") else { return Self.outcome(400, "invalid", "a kick-off needs Prefer: respond-async") }
        let accept = Self.header(request, "accept").lowercased()
        guard accept.isEmpty || accept.contains("application/fhir+json") || accept.contains("application/json") || accept.contains("*/*") else {
            return Self.outcome(400, "invalid", "a kick-off answers application/fhir+json only")
        }
        let parameters: BulkExportParameters
        do {
            parameters = try BulkExportParameters(query: request.uri.query ?? "", lenient: prefer.contains("handling=lenient"))
        } catch {
            return Self.outcome(400, "not-supported", error.reason)
        }
        if kind == "system", !configuration.auditors.contains(access.token.client) {
            try? await runner.fhir.auditAccess(access, resources: [operation], outcome: .minorFailure, reason: "not_an_auditor")
            return Self.outcome(403, "forbidden", "a system-level export is for the server's auditors only")
        }
        if kind.hasPrefix("group/") {
            let stored: StoredExportGroup?
            do {
                stored = try await store.exportGroup(id: String(kind.dropFirst(6)))
            } catch {
                return Self.outcome(500, "exception", "storage failure")
            }
            guard let stored else {
                try? await runner.fhir.auditAccess(access, resources: [operation], outcome: .minorFailure, reason: "not-found")
                return Self.outcome(404, "not-found", "unknown Group")
            }
            guard stored.client == access.token.client else {
                try? await runner.fhir.auditAccess(access, resources: [operation], outcome: .minorFailure, reason: "another_clients_group")
                return Self.outcome(403, "forbidden", "the Group was created by another client")
            }
        }
        await runner.resumeClaimable()
        let instant = now
        let base = baseURL
        var generator = SystemRandomNumberGenerator()
        let id = (0..<2).map { _ in Self.hex(generator.next() as UInt64) }.joined()
        let query = request.uri.query.map { "?" + $0 } ?? ""
        // A patient-bound token (`patient/` scopes with a patient in context) reads one patient, as SMART reads it: its
        // job covers that patient only (Patient/$export, or of a Group its member); a system/ token's stands for the client.
        let bound = access.token.patient != access.token.client ? access.token.patient : nil
        let job = StoredExportJob(id: id, client: access.token.client, tokenID: access.token.id, scope: access.scopeText,
                                  kind: BulkExportRunner.kind(kind, boundTo: bound),
                                  request: base + request.uri.path + query, types: parameters.types, since: parameters.since,
                                  transactionTime: instant, expiresAt: instant.adding(seconds: configuration.exportRetentionSeconds))
        do {
            try await store.createExportJob(job)
        } catch {
            return Self.outcome(500, "exception", "the export job could not be stored")
        }
        runner.start(id)
        let diagnostics = parameters.ignored.isEmpty ? "the export was accepted"
            : "the export was accepted; ignored: " + parameters.ignored.joined(separator: ", ")
        return Self.outcome(202, "informational", diagnostics, severity: "information", headers: [("Content-Location", "\(base)/bulk-export/\(id)")])
    }

    /// Whether a token's `scope` lets it export: it holds a `system/` or `patient/` resource
    /// scope that reads (a token with none, or only `user/` or write scopes, is refused with 403).
    static func allowsExport(scope: String) -> Bool {
        ScopeRequest(scope).scopes.contains { scope in
            guard case .resource(let resource) = scope else { return false }
            return (resource.context == .system || resource.context == .patient) && resource.access.contains(.read)
        }
    }

    // MARK: Groups

    /// The largest Group body read.
    static let maximumGroupBody = 256 << 10
    /// The most members a Group may list.
    static let maximumGroupMembers = 1_000

    /// `POST /fhir/Group`: a Group (`member[].entity.reference` `Patient/{csiGuid}`, 1 to
    /// ``maximumGroupMembers``) of patients whose wallets granted the caller's client something
    /// (403 naming the first that did not; 400 for anything else malformed), stored for the
    /// client's `Group/{id}/$export`; 201 with `Location` and the Group as stored.
    func createGroup(_ request: ServiceRequest, access: TrustService.BearerAccess) async -> ServiceResponse {
        guard let value = try? JSONParser.parse(request.body, maximumDepth: 16), let object = value.objectValue,
              object["resourceType"] == .string("Group"), let members = object["member"]?.arrayValue,
              (1...Self.maximumGroupMembers).contains(members.count) else {
            return Self.serviceOutcome(400, "invalid", "a Group with 1 to \(Self.maximumGroupMembers) members is expected")
        }
        var patients: [CsiGuid] = []
        for member in members {
            guard let reference = member["entity"]?["reference"]?.stringValue, reference.hasPrefix("Patient/"),
                  let patient = CsiGuid(String(reference.dropFirst(8))) else {
                return Self.serviceOutcome(400, "invalid", "each member's entity must be a reference Patient/{id}")
            }
            if !patients.contains(patient) { patients.append(patient) }
        }
        do {
            try await refreshLedger()
        } catch {
            return Self.serviceOutcome(500, "exception", "storage failure")
        }
        let instant = now
        let client = access.token.client
        let ledger = self.ledger
        if let refused = patients.first(where: { patient in ledger.held(by: client, patient: patient, at: instant).allSatisfy { $0.scope == .auditor } }) {
            try? await runner.fhir.auditAccess(access, resources: ["Group"], outcome: .minorFailure, reason: "not_granted", action: "C")
            return Self.serviceOutcome(403, "forbidden", "Patient/\(refused.rawValue) granted this client nothing")
        }
        var generator = SystemRandomNumberGenerator()
        let group = StoredExportGroup(id: (0..<2).map { _ in Self.hex(generator.next() as UInt64) }.joined(), client: client, members: patients,
                                      createdAt: instant)
        do {
            try await store.createExportGroup(group)
        } catch {
            return Self.serviceOutcome(500, "exception", "the Group could not be stored")
        }
        // Audited as a create by the client, as the FHIR endpoint's writes are.
        do {
            try await runner.fhir.auditAccess(access, resources: ["Group/\(group.id)"], outcome: .success, action: "C")
        } catch {
            return Self.serviceOutcome(500, "exception", "the Group's creation could not be audited")
        }
        var stored = JSONObject()
        stored.append("resourceType", "Group")
        stored.append("id", group.id)
        stored.append("type", "person")
        stored.append("actual", .bool(true))
        stored.append("member", .array(patients.map { patient in
            .object(JSONObject(members: [JSONMember(key: "entity", value: .object(JSONObject(members: [
                JSONMember(key: "reference", value: .string("Patient/\(patient.rawValue)")),
            ])))]))
        }))
        return .json(.object(stored), status: 201, contentType: FHIRController.fhirJSON,
                     headers: [("Location", "\(baseURL)/fhir/Group/\(group.id)")])
    }

    // MARK: Status, cancel, files

    /// The caller's job named by the route, or the answer (401, 404, 500) to give instead.
    private func callersJob(_ context: FhirBlocksRequestContext) async -> Result<StoredExportJob, ResponseError> {
        guard let access = context.access else { return .failure(ResponseError(FhirBlocksRouter.bridge(FHIRController.fhirUnauthenticated()))) }
        let id = context.parameters.get("job") ?? ""
        let job: StoredExportJob?
        do {
            job = try await store.exportJob(id: id)
        } catch {
            return .failure(ResponseError(Self.outcome(500, "exception", "storage failure")))
        }
        // A job still queued or running is answered past its kick-off's expiry (it moves when the job ends).
        guard let job, job.client == access.token.client, job.status == .queued || job.status == .running || now < job.expiresAt else {
            return .failure(ResponseError(Self.outcome(404, "not-found", "unknown export job")))
        }
        return .success(job)
    }

    func status(_ context: FhirBlocksRequestContext) async -> Response {
        let job: StoredExportJob
        switch await callersJob(context) {
        case .success(let found): job = found
        case .failure(let answer): return answer.response
        }
        switch job.status {
        case .queued, .running:
            // A job no server holds (queued, or its server stopped) is taken here.
            if job.status == .queued || (job.leaseUntil.map { $0 < now } ?? true) { runner.start(job.id) }
            var fields = HTTPFields()
            Self.add(&fields, "X-Progress", job.progress ?? (job.status == .queued ? "queued" : "running"))
            Self.add(&fields, "Retry-After", "1")
            return Response(status: .accepted, headers: fields)
        case .failed:
            return Self.outcome(500, "exception", job.error ?? "the export failed")
        case .completed:
            let outputs: [ExportOutput]
            do {
                outputs = try await store.exportOutputs(id: job.id)
            } catch {
                return Self.outcome(500, "exception", "storage failure")
            }
            let base = baseURL
            var manifest = JSONObject()
            manifest.append("transactionTime", job.transactionTime.wireText)
            manifest.append("request", job.request)
            manifest.append("requiresAccessToken", .bool(true))
            func item(_ output: ExportOutput) -> JSONValue {
                var item = JSONObject()
                item.append("type", output.type)
                item.append("url", "\(base)/bulk-export/\(job.id)/\(output.type).ndjson")
                item.append("count", .number(String(output.count)))
                return .object(item)
            }
            let sorted = outputs.sorted { $0.type < $1.type }
            // The OperationOutcome file (what lenient handling ignored) is the manifest's `error`.
            manifest.append("output", .array(sorted.filter { $0.type != BulkExportRunner.errorFileType }.map(item)))
            manifest.append("error", .array(sorted.filter { $0.type == BulkExportRunner.errorFileType }.map(item)))
            var fields = HTTPFields()
            Self.add(&fields, "Content-Type", "application/json")
            // `Expires` is an HTTP date (RFC 9110 IMF-fixdate), not the manifest's ISO 8601.
            Self.add(&fields, "Expires", FHIRController.httpDate(job.expiresAt))
            return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONWriter.serialize(.object(manifest)))))
        }
    }

    func cancel(_ context: FhirBlocksRequestContext) async -> Response {
        let job: StoredExportJob
        switch await callersJob(context) {
        case .success(let found): job = found
        case .failure(let answer): return answer.response
        }
        do {
            guard try await store.deleteExportJob(id: job.id) else { return Self.outcome(404, "not-found", "unknown export job") }
        } catch {
            return Self.outcome(500, "exception", "storage failure")
        }
        return Self.outcome(202, "informational", "the export was cancelled and its files deleted", severity: "information")
    }

    func file(_ context: FhirBlocksRequestContext) async -> Response {
        let job: StoredExportJob
        switch await callersJob(context) {
        case .success(let found): job = found
        case .failure(let answer): return answer.response
        }
        let name = context.parameters.get("file") ?? ""
        let type = name.hasSuffix(".ndjson") ? String(name.dropLast(7)) : ""
        guard job.status == .completed, ResourceScope(type) != nil,
              let output = try? await store.exportOutputs(id: job.id).first(where: { $0.type == type }) else {
            return Self.outcome(404, "not-found", "unknown export file")
        }
        // Past the server's cap, refused at once (never waiting for a place): 503, since the
        // server is busy with other clients' downloads, not this client asking too often (429).
        guard let permit = downloads.take() else {
            logger.notice("an export download was refused: the server sends as many as it allows", metadata: ["limit": "\(downloads.limit)"])
            return Self.outcome(503, "throttled", "the server is sending as many export files as it allows at once (\(downloads.limit)); "
                                + "retry after \(Self.downloadRetryAfterSeconds) s", headers: [("Retry-After", String(Self.downloadRetryAfterSeconds))])
        }
        let store = self.store
        let id = job.id
        let eventLoop = context.eventLoop
        var fields = HTTPFields()
        Self.add(&fields, "Content-Type", Self.ndjson)
        // One piece read from the store (a file on disk, or a chunk in the database) at a time,
        // into the buffer that is written, and let go.
        return Response(status: .ok, headers: fields, body: ResponseBody { writer in
            // A send that fails (the client left) gives the place back too.
            defer { permit.release() }
            try await store.sendExportFile(id: id, output: output) { (piece: DownloadPiece) in
                try await writer.write(piece.buffer)
                // The writer learns that the connection is full only on its event loop: until then
                // it takes every piece it is given. On a loaded machine, where that loop waits its
                // turn, a download could hand over its whole file (and give its place back) while
                // its client reads nothing. Waiting for the loop after each piece keeps a download
                // at most a piece or two ahead of what the connection took.
                try await eventLoop.submit {}.get()
            }
            // Given back before the body's end is sent: a client that read the whole file may
            // start its next download at once.
            permit.release()
            try await writer.finish(nil)
        })
    }

    /// The `Retry-After` of a download refused past the cap, in seconds.
    static let downloadRetryAfterSeconds = 5

    /// A piece of a download in the buffer the response writes: a file on disk is read into it directly.
    struct DownloadPiece: ExportFilePiece {
        var buffer: ByteBuffer

        init(capacity: Int) {
            buffer = ByteBufferAllocator().buffer(capacity: capacity)
        }

        var count: Int { buffer.readableBytes }

        mutating func append(upTo count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows {
            _ = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { free in
                min(max(try fill(UnsafeMutableRawBufferPointer(rebasing: free[..<count])), 0), count)
            }
        }
    }

    // MARK: Helpers

    /// The values of the header `name`, joined by commas.
    static func header(_ request: Request, _ name: String) -> String {
        request.headers.filter { $0.name.canonicalName == name }.map(\.value).joined(separator: ", ")
    }

    static func add(_ fields: inout HTTPFields, _ name: String, _ value: String) {
        if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
    }

    static func outcome(_ status: Int, _ code: String, _ diagnostics: String, severity: String? = nil, headers: [(String, String)] = []) -> Response {
        var issue = JSONObject()
        issue.append("severity", severity ?? (status >= 500 ? "fatal" : "error"))
        issue.append("code", code)
        issue.append("diagnostics", diagnostics)
        var outcome = JSONObject()
        outcome.append("resourceType", "OperationOutcome")
        outcome.append("issue", .array([.object(issue)]))
        return FhirBlocksRouter.bridge(.json(.object(outcome), status: status, contentType: FHIRController.fhirJSON, headers: headers))
    }

    /// ``outcome(_:_:_:severity:headers:)`` as a service response.
    static func serviceOutcome(_ status: Int, _ code: String, _ diagnostics: String) -> ServiceResponse {
        var issue = JSONObject()
        issue.append("severity", status >= 500 ? "fatal" : "error")
        issue.append("code", code)
        issue.append("diagnostics", diagnostics)
        var outcome = JSONObject()
        outcome.append("resourceType", "OperationOutcome")
        outcome.append("issue", .array([.object(issue)]))
        return .json(.object(outcome), status: status, contentType: FHIRController.fhirJSON)
    }

    static func hex(_ value: UInt64) -> String {
        withUnsafeBytes(of: value.bigEndian) { HexText.encode($0) }
    }

    /// A response to give instead of a job.
    struct ResponseError: Error {
        let response: Response
        init(_ response: Response) { self.response = response }
    }
}
