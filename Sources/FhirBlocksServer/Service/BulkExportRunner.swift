import ExactJSON
import FhirBlocks
import FhirBlocksStore
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs Bulk Data export jobs (``ExportStore``) on this server: takes a job's lease, reads the
/// compartments of the patients whose wallets granted the job's client (a patient-bound
/// token's job: its patient only, ``boundPatientMarker``), one batch of stored
/// resources at a time (with `_type`, only those types, each read alone with `_since` in the
/// statement, as lines in one buffer: ``ResourceStore/resourceLines(patient:type:since:until:afterID:limit:maximumBytes:)``),
/// keeps each resource the client may read, and appends it as an NDJSON line to its type's
/// file, a chunk at a time (``chunkSize``), so no file is ever held whole.
///
/// Who may see what is decided exactly as for a read by id: each patient's grants are what a
/// backend token of the job's scope would carry for that patient (the token's own scope
/// intersected with the patient's permissions in force, `ScopeRequest` and
/// `PermissionLedger.tokenGrants`, as the token endpoint issues them), and each resource passes
/// `FHIRController.visible(stored:type:interaction:grants:)`, the read path's filter. Each
/// patient the job covers (the client holds grants of it the job's scope reads) is one audit entry
/// (the types exported, and how many of each; `bulk-export nothing` when nothing was), committed
/// before the job completes, so nothing is served that was not audited.
///
/// A job is renewed (its lease and progress) after each patient and chunk; a cancelled job
/// (deleted) or one another server took over stops at the next renewal (a chunk is stored
/// while the job reads on, so the refusal of one is seen when the next is ready to store).
/// A job whose server stopped is resumed from nothing by whichever server next sees it claimable
/// (``resumeClaimable()``).
final class BulkExportRunner: TrustEndpoints {
    /// The bytes of NDJSON lines one chunk holds at least before it is stored (a line is never
    /// split; a page of lines kept whole is stored as it was read, up to about ``pageBytes``):
    /// each chunk is one write transaction (its lease checked), so fewer, larger chunks cost
    /// less (with 256 KiB chunks, a job waited about twice as long for its chunks to be stored
    /// as for its pages to be read).
    static let chunkSize = 1 << 20
    /// The resources one store read asks for (of one type, the first read: the job starts
    /// checking sooner).
    static let batchSize = 1_000
    /// The most resources a later read of one type asks for (each read costs about as much as a
    /// few hundred lines, so small lines are read many at a time).
    static let maximumBatchSize = 10_000
    /// The bytes of lines at which a read of one type ends (after the resource that reaches
    /// them), whatever the resources' sizes: two pages held at once stay a few megabytes.
    static let pageBytes = 2 << 20
    /// How long a lease lasts without renewal, in seconds.
    static let leaseSeconds: Int64 = 120

    /// The jobs and their files, and the compartments they are read from.
    let store: any ExportStore & ResourceStore
    /// The ledger (who granted the job's client what) and token cache.
    let trustLedger: TrustLedger
    /// The committer of each patient's audit entry.
    let committer: ChangeCommitter
    /// The FHIR endpoint's decisions (what a read by id may see) and audit entries.
    let fhir: FHIRController
    /// This runner's lease owner name: random, one per process and router.
    let owner: String
    /// The jobs this runner is working on.
    private let running = Mutex<Set<String>>([])

    /// A runner over `store`'s jobs, deciding with `trustLedger` and `fhir` what each patient's
    /// files hold, and auditing through `committer`.
    init(store: any ExportStore & ResourceStore, trustLedger: TrustLedger, committer: ChangeCommitter, fhir: FHIRController) {
        self.store = store
        self.trustLedger = trustLedger
        self.committer = committer
        self.fhir = fhir
        var generator = SystemRandomNumberGenerator()
        owner = "runner-" + String(generator.next() as UInt64, radix: 16)
    }

    /// Starts working on job `id` in a task of its own, unless this runner already is; the
    /// task returns at once when the job cannot be claimed.
    func start(_ id: String) {
        let inserted = running.withLock { $0.insert(id).inserted }
        guard inserted else { return }
        Task { [self] in
            await run(id)
            running.withLock { _ = $0.remove(id) }
        }
    }

    /// Starts every job the store says may be claimed (queued, or its lease ran out), and
    /// deletes the expired ones.
    func resumeClaimable() async {
        let instant = now
        _ = try? await store.deleteExpiredExportJobs(now: instant)
        for id in (try? await store.claimableExportJobs(now: instant)) ?? [] { start(id) }
    }

    /// Whether this runner is working on job `id`.
    func isRunning(_ id: String) -> Bool { running.withLock { $0.contains(id) } }

    // MARK: Work

    private func leaseEnd() -> Timestamp { now.adding(seconds: Self.leaseSeconds) }

    private func run(_ id: String) async {
        do {
            guard try await store.claimExportJob(id: id, owner: owner, now: now, leaseUntil: leaseEnd()),
                  let job = try await store.exportJob(id: id) else { return }
            let outcome = try await write(job)
            switch outcome {
            case .completed:
                _ = try await store.finishExportJob(id: id, owner: owner, status: .completed, error: nil, at: now)
            case .stopped:
                return
            }
        } catch {
            logger.error("a bulk export job failed", metadata: ["job": "\(id.prefix(8))", "reason": "\(error)"])
            _ = try? await store.finishExportJob(id: id, owner: owner, status: .failed, error: "the export failed in the store", at: now)
        }
    }

    private enum Outcome {
        case completed
        /// Cancelled, or taken over by another server.
        case stopped
    }

    /// Writes the job's files; `.stopped` as soon as the job is no longer this runner's.
    private func write(_ job: StoredExportJob) async throws -> Outcome {
        // The chunk being stored while the job reads on (one at a time, so each file's chunks
        // stay in order). A job that stops or fails waits for it to end first, so nothing of the
        // job is still being written when the job is marked failed, and no error is lost unseen.
        var storing = PendingAppend()
        do {
            let outcome = try await write(job, storing: &storing)
            if outcome == .stopped { await storing.abandon() }
            return outcome
        } catch {
            await storing.abandon()
            throw error
        }
    }

    private func write(_ job: StoredExportJob, storing: inout PendingAppend) async throws -> Outcome {
        try await refreshLedger()
        let instant = now
        let ledger = self.ledger
        var granting = Set(ledger.held(by: job.client, at: instant).filter { $0.scope != .auditor }.map(\.patient))
        let (kind, bound) = Self.boundPatient(of: job.kind)
        if kind.hasPrefix("group/") {
            // A Group's export: its members that still grant the client something.
            guard let group = try await store.exportGroup(id: String(kind.dropFirst(6))), group.client == job.client else {
                throw BulkExportRefusal("the Group is gone")
            }
            granting.formIntersection(group.members)
        }
        // A patient-bound token's job: its patient only (none when the stored patient cannot be read).
        if let bound { granting.formIntersection(bound.map { [$0] } ?? []) }
        let patients = granting.sorted { $0.rawValue < $1.rawValue }
        var files = FileChunks(jobID: job.id)
        // The kick-off's `_typeFilter` queries, read again from its stored URL (they were
        // checked at kick-off); what lenient handling ignored is the manifest's `error` file.
        let query = job.request.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        guard let parameters = try? BulkExportParameters(query: query, lenient: true) else { throw BulkExportRefusal("the kick-off URL cannot be read") }
        if !parameters.ignored.isEmpty {
            _ = files.append(Self.ignoredOutcome(parameters.ignored), type: Self.errorFileType)
        }
        // The types asked for (`_type`) are each read alone, in byte order, through the index
        // and with `_since` in the statement; without `_type`, the whole compartment is read.
        let wanted: [String?] = job.types.isEmpty ? [nil]
            : Set(job.types).filter { $0 != Self.errorFileType }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for (position, patient) in patients.enumerated() {
            guard let access = patientAccess(job, patient: patient, ledger: ledger, at: instant) else { continue }
            var counts: [String: Int] = [:]
            var visibility = ExportVisibility(fhir: fhir, grants: access.grants)
            for type in wanted {
                // `_since` (strictly after) to `transactionTime` (at or before): what was written after the
                // kick-off, while the job waited or ran or before it was taken over, is for the next export.
                let store = self.store, since = job.since, until = job.transactionTime
                if let type {
                    // One type: each page comes as its resources' JSON in one buffer, each already
                    // followed by its line feed; a line kept is appended to the chunk at once. Each
                    // page is read while the one before it is sorted and its chunks stored.
                    func linesPage(after: String?, limit: Int) -> Task<ResourceLines, any Error> {
                        Task {
                            try await store.resourceLines(patient: patient, type: type, since: since, until: until, afterID: after, limit: limit,
                                                          maximumBytes: Self.pageBytes)
                        }
                    }
                    var limit = Self.batchSize
                    var next = linesPage(after: nil, limit: limit)
                    // A page read ahead is not wanted once the job stops or fails.
                    defer { next.cancel() }
                    var kept = 0
                    while true {
                        let lines = try await next.value
                        let more = lines.mayHaveMore(limit: limit, maximumBytes: Self.pageBytes)
                        if more, let last = lines.lastID {
                            limit = Self.maximumBatchSize
                            next = linesPage(after: last, limit: limit)
                        }
                        // Each line checked in place; the kept ones appended a run at a time (a page kept
                        // whole into an empty chunk is taken as it is, not copied).
                        let appended = files.append(page: lines, type: type) { json in
                            Self.exports(json, type: type, visibility: &visibility, parameters: parameters)
                        }
                        kept += appended.kept
                        for full in appended.full {
                            let (owner, progress, lease) = (owner, Self.progress(position, patients.count), leaseEnd())
                            guard try await storing.start({ try await store.appendExportChunk(full, owner: owner, progress: progress, leaseUntil: lease) })
                            else { return .stopped }
                        }
                        if !more { break }
                    }
                    if kept > 0 { counts[type, default: 0] += kept }
                    continue
                }
                // The whole compartment, a page of records at a time (each read while the one before it is sorted and stored).
                func page(after: (type: String, id: String)?) -> Task<[FHIRResourceRecord], any Error> {
                    Task { try await store.resources(patient: patient, after: after, limit: Self.batchSize) }
                }
                var next = page(after: nil)
                defer { next.cancel() }
                while true {
                    let records = try await next.value
                    let more = records.count >= Self.batchSize
                    if more, let last = records.last { next = page(after: (last.type, last.id)) }
                    for record in records {
                        guard record.type != Self.errorFileType, job.types.isEmpty || job.types.contains(record.type),
                              job.since.map({ $0 < record.lastUpdated }) ?? true, !(job.transactionTime < record.lastUpdated),
                              record.json.withUnsafeBytes({ Self.exports($0, type: record.type, visibility: &visibility, parameters: parameters) })
                        else { continue }
                        counts[record.type, default: 0] += 1
                        if let full = files.append(record.json, type: record.type) {
                            let (owner, progress, lease) = (owner, Self.progress(position, patients.count), leaseEnd())
                            guard try await storing.start({ try await store.appendExportChunk(full, owner: owner, progress: progress, leaseUntil: lease) })
                            else { return .stopped }
                        }
                    }
                    if !more { break }
                }
            }
            guard try await storing.settle() else { return .stopped }
            // Every patient the job covered is audited, those with nothing exported too (`bulk-export nothing`).
            let types = counts.keys.sorted()
            var change = TrustChange()
            change.auditEntries = [fhir.accessEntry(access, resources: types, outcome: .success, reason: Self.auditSummary(counts), action: "R")]
            try await storeCommit(change)
            guard try await store.renewExportJob(id: job.id, owner: owner, progress: Self.progress(position + 1, patients.count),
                                                 leaseUntil: leaseEnd()) else { return .stopped }
        }
        for chunk in files.drain() {
            guard try await store.appendExportChunk(chunk, owner: owner, progress: "writing files", leaseUntil: leaseEnd()) else { return .stopped }
        }
        return .completed
    }

    /// Whether a stored resource of `type` whose JSON is `json` goes into the export: one JSON
    /// object on one line, that the patient's grants let the job read (``ExportVisibility``,
    /// the read path's filter), that passes the kick-off's `_typeFilter` queries of its type.
    static func exports(_ json: UnsafeRawBufferPointer, type: String, visibility: inout ExportVisibility, parameters: BulkExportParameters) -> Bool {
        guard FHIRController.isDelimitedObject(json), !ExportVisibility.containsLineFeed(json), visibility.visible(json, type: type) else { return false }
        guard !parameters.typeFilters.isEmpty, parameters.typeFilters[type] != nil else { return true }
        return (try? JSONParser.parse(Array(json))).map { parameters.passesTypeFilter($0, type: type) } == true
    }

    /// The type of the job's `error` file (OperationOutcomes), which no patient's resource is exported as.
    static let errorFileType = "OperationOutcome"

    /// One OperationOutcome line naming the kick-off parameters lenient handling ignored.
    static func ignoredOutcome(_ ignored: [String]) -> [UInt8] {
        var outcome = JSONObject()
        outcome.append("resourceType", errorFileType)
        outcome.append("issue", .array(ignored.map { name in
            var issue = JSONObject()
            issue.append("severity", "warning")
            issue.append("code", "not-supported")
            issue.append("diagnostics", "ignored (Prefer: handling=lenient): \(name)")
            return .object(issue)
        }))
        return JSONWriter.serialize(.object(outcome))
    }

    /// What follows a job's kind when it was kicked off with a patient-bound token (`patient/`
    /// scopes with a patient in context, as SMART App Launch issues them): `;patient=` and the
    /// patient (`patient;patient={csiGuid}`, `group/{id};patient={csiGuid}`).
    static let boundPatientMarker = ";patient="

    /// The stored kind of a job kicked off as `kind` by a token bound to `patient` (nil: a
    /// `system/` token's, the client's own).
    static func kind(_ kind: String, boundTo patient: CsiGuid?) -> String {
        patient.map { kind + boundPatientMarker + $0.rawValue } ?? kind
    }

    /// A stored kind's operation (`patient`, `system`, `group/{id}`) and, for a patient-bound
    /// token's job, its patient (`.some(nil)` when the stored patient cannot be read: the job
    /// then covers no one).
    static func boundPatient(of stored: String) -> (kind: String, patient: CsiGuid??) {
        let parts = stored.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return (stored, nil) }
        let marker = boundPatientMarker.dropFirst()
        let patient: CsiGuid? = parts[1].hasPrefix(marker) ? CsiGuid(String(parts[1].dropFirst(marker.count))) : nil
        return (String(parts[0]), .some(patient))
    }

    /// A patient's audit entry's reason: `bulk-export` and each type exported with its count
    /// (`bulk-export Observation=3 Patient=1`), or `bulk-export nothing` when nothing was.
    static func auditSummary(_ counts: [String: Int]) -> String {
        guard !counts.isEmpty else { return "bulk-export nothing" }
        return "bulk-export " + counts.keys.sorted().map { "\($0)=\(counts[$0] ?? 0)" }.joined(separator: " ")
    }

    /// `X-Progress`: how many of the patients are done.
    static func progress(_ done: Int, _ total: Int) -> String {
        "\(done) of \(total) patients exported"
    }

    /// What a backend token of the job's scope would grant over `patient`'s data at `instant`
    /// (nil when nothing), as a backend token's read is granted
    /// (``TrustService/BearerAccess/backend(client:tokenID:scopeText:patient:issuedAt:expiresAt:quirks:ledger:at:policy:)``).
    private func patientAccess(_ job: StoredExportJob, patient: CsiGuid, ledger: PermissionLedger, at instant: Timestamp) -> TrustService.BearerAccess? {
        .backend(client: job.client, tokenID: job.tokenID, scopeText: job.scope, patient: patient, issuedAt: instant,
                 expiresAt: instant.adding(seconds: Self.leaseSeconds), quirks: [], ledger: ledger, at: instant, policy: configuration.labelPolicy)
    }
}

/// The chunks of a job's files being filled: one buffer per type, handed out once it holds
/// ``BulkExportRunner/chunkSize`` bytes.
struct FileChunks {
    typealias Buffer = (sequence: Int, lines: Int, bytes: [UInt8])
    let jobID: String
    private var buffers: [String: Buffer] = [:]
    /// The type appended to last, and its buffer, kept out of `buffers`: a run of lines of one
    /// type looks nothing up.
    private var currentType: String?
    private var current: Buffer = (0, 0, [])

    init(jobID: String) {
        self.jobID = jobID
    }

    /// Appends one line (and its line feed) to `type`'s file; returns the chunk to store when the buffer is full.
    mutating func append(_ line: [UInt8], type: String) -> ExportChunk? {
        line.withUnsafeBytes { append($0, feed: true, type: type) }
    }

    /// Appends one line that ends in its line feed already to `type`'s file; returns the chunk to store when the buffer is full.
    mutating func append(terminatedLine line: UnsafeRawBufferPointer, type: String) -> ExportChunk? {
        append(line, feed: false, type: type)
    }

    /// Appends the lines of `page` that `keep` accepts (given each line's JSON, without its line
    /// feed) to `type`'s file, each run of kept lines copied at once; a page kept whole while
    /// the buffer is empty becomes the buffer as it is (no copy). Returns how many lines were
    /// kept and the chunks filled, in order (each at least ``BulkExportRunner/chunkSize`` bytes).
    mutating func append(page: ResourceLines, type: String, keep: (UnsafeRawBufferPointer) -> Bool) -> (kept: Int, full: [ExportChunk]) {
        select(type)
        var kept = 0
        var full: [ExportChunk] = []
        // The run of kept lines not yet appended: where it starts in the page's bytes, how many lines.
        var run: (start: Int, lines: Int)?
        page.bytes.withUnsafeBytes { buffer in
            func appendRun(upTo end: Int) {
                guard let pending = run else { return }
                run = nil
                if let chunk = appendTerminated(UnsafeRawBufferPointer(rebasing: buffer[pending.start..<end]), lines: pending.lines, type: type) {
                    full.append(chunk)
                }
            }
            for index in 0..<page.count {
                let range = page.range(index)
                guard keep(UnsafeRawBufferPointer(rebasing: buffer[range])) else {
                    appendRun(upTo: range.lowerBound)
                    continue
                }
                kept += 1
                // Whole pages kept into an empty buffer are taken below as they are.
                if run == nil { run = (range.lowerBound, 0) }
                run?.lines += 1
            }
            if let pending = run, pending.start == 0, pending.lines == page.count, current.bytes.isEmpty { return }
            appendRun(upTo: page.bytes.count)
        }
        if let pending = run {
            current.bytes = page.bytes
            current.lines = pending.lines
            if let chunk = takeIfFull(type: type) { full.append(chunk) }
        }
        return (kept, full)
    }

    /// Makes `type`'s buffer the current one.
    private mutating func select(_ type: String) {
        guard currentType != type else { return }
        if let currentType { buffers[currentType] = current }
        // Taken out of the dictionary (not copied), so appending never copies the buffer's bytes.
        current = buffers.removeValue(forKey: type) ?? (0, 0, [])
        currentType = type
    }

    private mutating func append(_ line: UnsafeRawBufferPointer, feed: Bool, type: String) -> ExportChunk? {
        select(type)
        if current.bytes.isEmpty { current.bytes.reserveCapacity(BulkExportRunner.chunkSize + line.count + 1) }
        current.bytes.append(contentsOf: line.assumingMemoryBound(to: UInt8.self))
        if feed { current.bytes.append(UInt8(ascii: "\n")) }
        current.lines += 1
        return takeIfFull(type: type)
    }

    /// Appends `lines` whole lines, each ending in its line feed already, to the current buffer (of `type`).
    private mutating func appendTerminated(_ bytes: UnsafeRawBufferPointer, lines: Int, type: String) -> ExportChunk? {
        if current.bytes.isEmpty { current.bytes.reserveCapacity(max(BulkExportRunner.chunkSize, bytes.count)) }
        current.bytes.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
        current.lines += lines
        return takeIfFull(type: type)
    }

    /// The current buffer (of `type`) as a chunk when it holds ``BulkExportRunner/chunkSize`` bytes, and a new buffer after it.
    private mutating func takeIfFull(type: String) -> ExportChunk? {
        guard current.bytes.count >= BulkExportRunner.chunkSize else { return nil }
        let full = current
        current = (full.sequence + 1, 0, [])
        return ExportChunk(jobID: jobID, type: type, sequence: full.sequence, lineCount: full.lines, bytes: full.bytes)
    }

    /// The partly filled chunks, by type, emptying the buffers.
    mutating func drain() -> [ExportChunk] {
        if let currentType { buffers[currentType] = current }
        currentType = nil
        current = (0, 0, [])
        defer { buffers = [:] }
        return buffers.sorted { $0.key < $1.key }.compactMap { type, buffer in
            buffer.lines == 0 ? nil : ExportChunk(jobID: jobID, type: type, sequence: buffer.sequence, lineCount: buffer.lines, bytes: buffer.bytes)
        }
    }
}

/// The one chunk a job has handed to the store while it reads on: the next waits for it, so
/// the chunks of each file are stored in order, and a refusal (the job is no longer the
/// runner's) is seen before anything more is stored.
struct PendingAppend {
    private var task: Task<Bool, any Error>?

    /// Waits for the chunk being stored (true when none is): false when the store refused it; throws what storing it threw.
    mutating func settle() async throws -> Bool {
        guard let task else { return true }
        self.task = nil
        return try await task.value
    }

    /// Waits for the chunk being stored, if any, to end (not cancelled: a store write is left
    /// whole), ignoring its outcome: the job stopped or failed already.
    mutating func abandon() async {
        guard let task else { return }
        self.task = nil
        _ = try? await task.value
    }

    /// Waits for the chunk before (false, and nothing started, when it was refused), then starts `append`.
    mutating func start(_ append: @escaping @Sendable () async throws -> Bool) async throws -> Bool {
        guard try await settle() else { return false }
        task = Task(operation: append)
        return true
    }
}

/// What `FHIRController.visible(stored:type:interaction:grants:)` decides for the resources of
/// one patient's export (a read, under that patient's grants), asked once per type for the
/// resources it decides alike: with no granular (filtered) grant, a resource whose JSON holds
/// neither a backslash nor `security` has no security labels (``FHIRController/storedLabels(_:)``
/// does not parse it), so the decision depends on its type only. Every other resource is
/// decided alone, as a read decides it.
struct ExportVisibility {
    let fhir: FHIRController
    let grants: [PermissionScope]
    /// Whether a grant carries a granular filter (then every resource is decided alone).
    let filtered: Bool
    /// The decision for a resource without labels, by type, once asked.
    private var unlabeled: [String: Bool] = [:]
    /// The last of them asked (a run of one type looks nothing up).
    private var last: (type: String, decision: Bool)?

    init(fhir: FHIRController, grants: [PermissionScope]) {
        self.fhir = fhir
        self.grants = grants
        filtered = GranularScopes.anyFiltered(grants)
    }

    /// Whether the resource of `type` stored as `json` may be read under the grants.
    mutating func visible(_ json: [UInt8], type: String) -> Bool {
        guard !filtered, !Self.mayHoldSecurityMember(json) else {
            return fhir.visible(stored: json, type: type, interaction: .read, grants: grants)
        }
        return unlabeledDecision(type: type, json: json)
    }

    /// Whether the resource of `type` stored as `json` may be read under the grants (the bytes
    /// copied for the read path's filter only when it decides alone).
    mutating func visible(_ json: UnsafeRawBufferPointer, type: String) -> Bool {
        guard !filtered, !Self.mayHoldSecurityMember(json) else {
            return fhir.visible(stored: Array(json), type: type, interaction: .read, grants: grants)
        }
        return unlabeledDecision(type: type, json: Array(json))
    }

    /// The decision for a resource of `type` without labels (`json` one of them), asked once per type.
    private mutating func unlabeledDecision(type: String, json: @autoclosure () -> [UInt8]) -> Bool {
        if let last, last.type == type { return last.decision }
        let decision = unlabeled[type] ?? fhir.visible(stored: json(), type: type, interaction: .read, grants: grants)
        unlabeled[type] = decision
        last = (type, decision)
        return decision
    }

    /// Whether the bytes contain a backslash (found with `memchr`) or the word `security` (16
    /// positions at a time: those where `s` starts and `y` ends eight bytes, then each such
    /// position compared whole): the bytes the read path parses for labels.
    static func mayHoldSecurityMember(_ json: [UInt8]) -> Bool {
        json.withUnsafeBytes { mayHoldSecurityMember($0) }
    }

    /// The same check of bytes in memory.
    static func mayHoldSecurityMember(_ raw: UnsafeRawBufferPointer) -> Bool {
        guard let base = raw.baseAddress, !raw.isEmpty else { return false }
        if memchr(base, Int32(UInt8(ascii: "\\")), raw.count) != nil { return true }
        let count = raw.count
        func isWord(at index: Int) -> Bool { raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) == securityWord }
        let first = SIMD16<UInt8>(repeating: UInt8(ascii: "s")), last = SIMD16<UInt8>(repeating: UInt8(ascii: "y"))
        var index = 0
        while index + 23 <= count {
            let starts = raw.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self)
            let ends = raw.loadUnaligned(fromByteOffset: index + 7, as: SIMD16<UInt8>.self)
            if any((starts .== first) .& (ends .== last)) {
                for candidate in index..<(index + 16) where isWord(at: candidate) { return true }
            }
            index += 16
        }
        while index + 8 <= count {
            if isWord(at: index) { return true }
            index += 1
        }
        return false
    }

    /// `security` as its eight bytes read at once (`s` first in memory): a literal, not a lazily
    /// made global (whose once-check each call would pay).
    private static var securityWord: UInt64 { UInt64(littleEndian: 0x7974_6972_7563_6573) }

    /// Whether the bytes hold a line feed (found with `memchr`): such a JSON cannot be one NDJSON line.
    static func containsLineFeed(_ json: [UInt8]) -> Bool {
        json.withUnsafeBytes { containsLineFeed($0) }
    }

    /// The same check of bytes in memory.
    static func containsLineFeed(_ raw: UnsafeRawBufferPointer) -> Bool {
        guard let base = raw.baseAddress, !raw.isEmpty else { return false }
        return memchr(base, Int32(UInt8(ascii: "\n")), raw.count) != nil
    }
}
