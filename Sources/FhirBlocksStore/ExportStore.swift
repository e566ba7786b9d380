import FhirBlocks

/// The Bulk Data export's share of a ``TrustStore`` (`health serve`'s `$export`): the jobs and
/// the NDJSON files they write, kept where every server on the same database finds them, so
/// that they survive a restart: a SQLite store writes each file to disk, in the `exports` folder
/// beside its database file (owner-only, `exports/{job}/{Type}.ndjson`), and keeps only the job
/// and each chunk's line count in the database; PostgreSQL keeps the files' chunks in the
/// database itself (every server on it may be on another machine).
///
/// A file is a sequence of chunks (each a run of whole NDJSON lines, a megabyte or a few),
/// written one at a time as the job reads the store and read back a piece at a time
/// as a client downloads (``sendExportFile(id:output:to:)``): no file is ever held whole in
/// memory. A job is worked on by one server at a time, the holder of its lease
/// (``claimExportJob(id:owner:now:leaseUntil:)``); a lease that ran out (its server stopped) may
/// be claimed by any server, which starts the job again from nothing. Statements are ``ExportSQL``'s.
public protocol ExportStore: Sendable {
    /// Stores a new job (status `queued`); ``TrustStoreError/conflict(_:)`` when its id is taken.
    func createExportJob(_ job: StoredExportJob) async throws(TrustStoreError)
    /// The job with this id, if any.
    func exportJob(id: String) async throws(TrustStoreError) -> StoredExportJob?
    /// Takes the job for `owner` until `leaseUntil` when it is queued, or running under a lease
    /// that ran out before `now` (its files so far are deleted: the job starts again); false
    /// when it is neither (another server works on it, or it is finished, or unknown).
    func claimExportJob(id: String, owner: String, now: Timestamp, leaseUntil: Timestamp) async throws(TrustStoreError) -> Bool
    /// Appends one chunk to the job's file of `type` and records the job's progress and new
    /// lease, in one transaction; false (nothing stored) when `owner` no longer holds the
    /// running job (it was cancelled, or its lease was taken over).
    func appendExportChunk(_ chunk: ExportChunk, owner: String, progress: String, leaseUntil: Timestamp) async throws(TrustStoreError) -> Bool
    /// Records the progress and new lease of the running job `owner` holds; false when it no
    /// longer holds it (cancelled, or taken over).
    func renewExportJob(id: String, owner: String, progress: String, leaseUntil: Timestamp) async throws(TrustStoreError) -> Bool
    /// Marks the running job `owner` holds finished (`completed` or `failed` with `error`), at
    /// `at`; false when `owner` does not hold it.
    func finishExportJob(id: String, owner: String, status: ExportJobStatus, error: String?, at: Timestamp) async throws(TrustStoreError) -> Bool
    /// The job's files: each type with its resources and chunks, by type.
    func exportOutputs(id: String) async throws(TrustStoreError) -> [ExportOutput]
    /// One chunk of the job's file of `type` (from 0), if stored in the database (a SQLite
    /// store's chunks are on disk: their rows hold no bytes).
    func exportChunk(id: String, type: String, sequence: Int) async throws(TrustStoreError) -> [UInt8]?
    /// Sends the job's file `output` (as ``exportOutputs(id:)`` listed it) to `send`, one piece
    /// (a chunk of about 1 MiB, or at most ``ExportFilePiece/readSize`` bytes read from disk) at a time, in order, each in
    /// memory of the caller's kind (`Piece`: a server's network buffer, so a piece read from disk
    /// is read straight into what is sent); throws ``ExportFileMissing`` when a piece is gone (the
    /// job was deleted meanwhile), or what `send` throws. The default sends the database's chunks
    /// (``sendExportChunks(id:output:to:)``).
    /// - Parameters:
    ///   - id: The job.
    ///   - output: The file.
    ///   - send: Called with each piece.
    func sendExportFile<Piece: ExportFilePiece>(id: String, output: ExportOutput, to send: (Piece) async throws -> Void) async throws
    /// Deletes the job and its files; false when there was no such job.
    func deleteExportJob(id: String) async throws(TrustStoreError) -> Bool
    /// Deletes every job (and its files) that expired at `now`; returns how many.
    func deleteExpiredExportJobs(now: Timestamp) async throws(TrustStoreError) -> Int
    /// The ids of the jobs a server may claim at `now`: queued, or running under a lease that ran out.
    func claimableExportJobs(now: Timestamp) async throws(TrustStoreError) -> [String]
    /// Stores a Group a client created to export; ``TrustStoreError/conflict(_:)`` when its id is taken.
    func createExportGroup(_ group: StoredExportGroup) async throws(TrustStoreError)
    /// The Group with this id, if any.
    func exportGroup(id: String) async throws(TrustStoreError) -> StoredExportGroup?
}

extension ExportStore {
    public func sendExportFile<Piece: ExportFilePiece>(id: String, output: ExportOutput, to send: (Piece) async throws -> Void) async throws {
        try await sendExportChunks(id: id, output: output, to: send)
    }

    /// Sends the file's chunks as stored in the database, one at a time (each read, sent and let
    /// go); throws ``ExportFileMissing`` for a chunk that is not there or holds no bytes.
    /// - Parameters:
    ///   - id: The job.
    ///   - output: The file.
    ///   - send: Called with each chunk.
    public func sendExportChunks<Piece: ExportFilePiece>(id: String, output: ExportOutput, to send: (Piece) async throws -> Void) async throws {
        for sequence in 0..<output.chunks {
            guard let bytes = try await exportChunk(id: id, type: output.type, sequence: sequence), !bytes.isEmpty else {
                throw ExportFileMissing(job: id, type: output.type)
            }
            try await send(Piece(copying: bytes))
        }
    }
}

/// Memory that one piece of an export file is sent in (``ExportStore/sendExportFile(id:output:to:)``):
/// the downloading server's own buffers, so that a piece read from a file on disk is read into
/// them directly, and not copied again to be sent.
public protocol ExportFilePiece: Sendable {
    /// An empty piece with room for `capacity` bytes.
    init(capacity: Int)
    /// How many bytes it holds.
    var count: Int { get }
    /// Lets `fill` write up to `count` bytes after the ones held, into uninitialized memory; it
    /// returns how many it wrote (0 to `count`), and the piece holds them afterwards.
    mutating func append(upTo count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows
}

extension ExportFilePiece {
    /// The most bytes one read of a file on disk takes for a piece.
    public static var readSize: Int { 1 << 20 }

    /// A piece holding a copy of `bytes`.
    public init(copying bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { Self(copying: $0) }
    }

    /// A piece holding a copy of the bytes at `source` (a row's bytes as the database driver
    /// holds them, copied once, straight into the piece).
    public init(copying source: UnsafeRawBufferPointer) {
        self.init(capacity: source.count)
        append(upTo: source.count) { target in
            target.copyMemory(from: source)
            return source.count
        }
    }
}

/// A piece in an array of bytes.
extension [UInt8]: ExportFilePiece {
    public init(capacity: Int) {
        self.init()
        reserveCapacity(capacity)
    }

    /// `fill` writes into the array itself, after its bytes (room made for `count` bytes, then
    /// cut to what it wrote): no second array, and no copy of what it read.
    public mutating func append(upTo count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows {
        let start = self.count
        append(contentsOf: repeatElement(0, count: Swift.max(count, 0)))
        var kept = 0
        defer { removeLast(self.count - start - kept) }
        let filled = try withUnsafeMutableBytes { all in try fill(UnsafeMutableRawBufferPointer(rebasing: all[start...])) }
        kept = Swift.min(Swift.max(filled, 0), Swift.max(count, 0))
    }
}

/// A piece of an export file the manifest counted is not stored (the job was deleted, or its
/// files removed, while the file was sent).
public struct ExportFileMissing: Error, Sendable, Hashable, CustomStringConvertible {
    /// The job.
    public var job: String
    /// The file's resource type.
    public var type: String

    /// Creates the error.
    /// - Parameters:
    ///   - job: The job.
    ///   - type: The file's resource type.
    public init(job: String, type: String) {
        self.job = job
        self.type = type
    }

    /// The file and job, in words (the job by the start of its id).
    public var description: String { "the export file \(type) of job \(job.prefix(8)) is gone" }
}

/// A Group of patients a client created to export them (`POST /fhir/Group`, then
/// `GET /fhir/Group/{id}/$export`).
public struct StoredExportGroup: Sendable, Hashable {
    /// Its id (random, URL-safe).
    public var id: String
    /// The client that created it (the only one that may export it).
    public var client: CsiGuid
    /// The patients, in the order given.
    public var members: [CsiGuid]
    /// When it was created.
    public var createdAt: Timestamp

    /// Creates a group record.
    /// - Parameters:
    ///   - id: Its id.
    ///   - client: The client that created it.
    ///   - members: The patients.
    ///   - createdAt: When it was created.
    public init(id: String, client: CsiGuid, members: [CsiGuid], createdAt: Timestamp) {
        self.id = id
        self.client = client
        self.members = members
        self.createdAt = createdAt
    }
}

/// Where an export job is.
public enum ExportJobStatus: String, Sendable, Hashable, CaseIterable {
    /// Waiting for a server to take it.
    case queued
    /// A server is writing its files.
    case running
    /// Its files are complete.
    case completed
    /// It stopped with an error.
    case failed
}

/// An export job as stored.
public struct StoredExportJob: Sendable, Hashable {
    /// Its id (random, URL-safe).
    public var id: String
    /// The client (the token's) that asked for it.
    public var client: CsiGuid
    /// The audit identifier of the token that asked.
    public var tokenID: String
    /// The scope of the token that asked (each patient's grants are this scope ∩ what the patient granted).
    public var scope: String
    /// `patient`, `system` or `group/` and the Group's id.
    public var kind: String
    /// The kick-off request's URL, as the manifest's `request`.
    public var request: String
    /// The resource types asked for (`_type`); empty for all.
    public var types: [String]
    /// Only resources updated at or after this time (`_since`).
    public var since: Timestamp?
    /// Where it is.
    public var status: ExportJobStatus
    /// The manifest's `transactionTime`: when it was asked for.
    public var transactionTime: Timestamp
    /// When it and its files are deleted.
    public var expiresAt: Timestamp
    /// The server working on it, while it runs.
    public var leaseOwner: String?
    /// Until when that server holds it.
    public var leaseUntil: Timestamp?
    /// How far it got (the status answer's `X-Progress`).
    public var progress: String?
    /// Why it failed.
    public var error: String?

    /// Creates a job record.
    /// - Parameters:
    ///   - id: Its id.
    ///   - client: The client that asked.
    ///   - tokenID: The audit identifier of the token that asked.
    ///   - scope: The scope of the token that asked.
    ///   - kind: `patient`, `system` or `group/` and the Group's id.
    ///   - request: The kick-off URL.
    ///   - types: The resource types asked for, empty for all.
    ///   - since: The `_since` time.
    ///   - status: Where it is.
    ///   - transactionTime: When it was asked for.
    ///   - expiresAt: When it is deleted.
    ///   - leaseOwner: The server working on it.
    ///   - leaseUntil: Until when that server holds it.
    ///   - progress: How far it got.
    ///   - error: Why it failed.
    public init(id: String, client: CsiGuid, tokenID: String, scope: String, kind: String, request: String, types: [String], since: Timestamp?,
                status: ExportJobStatus = .queued, transactionTime: Timestamp, expiresAt: Timestamp, leaseOwner: String? = nil,
                leaseUntil: Timestamp? = nil, progress: String? = nil, error: String? = nil) {
        self.id = id
        self.client = client
        self.tokenID = tokenID
        self.scope = scope
        self.kind = kind
        self.request = request
        self.types = types
        self.since = since
        self.status = status
        self.transactionTime = transactionTime
        self.expiresAt = expiresAt
        self.leaseOwner = leaseOwner
        self.leaseUntil = leaseUntil
        self.progress = progress
        self.error = error
    }
}

/// One chunk of an export file: whole NDJSON lines.
public struct ExportChunk: Sendable, Hashable {
    /// The job.
    public var jobID: String
    /// The file's resource type.
    public var type: String
    /// Its position in the file, from 0.
    public var sequence: Int
    /// How many lines (resources) it holds.
    public var lineCount: Int
    /// The lines, each ending in a line feed.
    public var bytes: [UInt8]

    /// Creates a chunk.
    /// - Parameters:
    ///   - jobID: The job.
    ///   - type: The file's resource type.
    ///   - sequence: Its position in the file.
    ///   - lineCount: How many lines it holds.
    ///   - bytes: The lines.
    public init(jobID: String, type: String, sequence: Int, lineCount: Int, bytes: [UInt8]) {
        self.jobID = jobID
        self.type = type
        self.sequence = sequence
        self.lineCount = lineCount
        self.bytes = bytes
    }
}

/// One file of an export job, as the manifest lists it.
public struct ExportOutput: Sendable, Hashable {
    /// Its resource type.
    public var type: String
    /// How many resources it holds.
    public var count: Int
    /// How many chunks it is stored as.
    public var chunks: Int

    /// Creates an output.
    /// - Parameters:
    ///   - type: Its resource type.
    ///   - count: How many resources it holds.
    ///   - chunks: How many chunks it is stored as.
    public init(type: String, count: Int, chunks: Int) {
        self.type = type
        self.count = count
        self.chunks = chunks
    }
}
