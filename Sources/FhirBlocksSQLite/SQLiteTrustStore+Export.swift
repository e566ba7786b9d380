import FhirBlocks
import FhirBlocksStore
import Foundation
import GRDB

/// The Bulk Data export's jobs and files (``ExportStore``): ``ExportSQL``'s statements on the
/// writer (one transaction each write) and the readers, in the store's database file (the data
/// folder); the NDJSON files themselves on disk beside it (``SQLiteExportFiles``: `exports/{job}/{Type}.ndjson`,
/// owner-only), written inside the transaction that records each chunk (so a chunk is in the
/// file exactly when the job's lease holder wrote it), removed with their job (cancel, retention,
/// a claim that starts the job again), and read a piece at a time for a download. An in-memory
/// store keeps the chunks in the database.
extension SQLiteTrustStore {
    /// Where this store's export files are (nil in memory).
    var exportFiles: SQLiteExportFiles? { SQLiteExportFiles(databasePath: path) }

    public func createExportJob(_ job: StoredExportJob) async throws(TrustStoreError) {
        let statement = ExportSQL.create(job)
        guard try await write({ db in try Self.fetchOne(db, statement) != nil }) else { throw .conflict("export_job \(job.id.prefix(8))") }
    }

    public func exportJob(id: String) async throws(TrustStoreError) -> StoredExportJob? {
        let statement = ExportSQL.job(id: id)
        return try await pointRead { db in try Self.fetchOne(db, statement).map(Self.exportJob) }
    }

    public func claimExportJob(id: String, owner: String, now: Timestamp, leaseUntil: Timestamp) async throws(TrustStoreError) -> Bool {
        let files = exportFiles
        // What an earlier holder wrote is deleted with its rows.
        return try await runExportSteps(ExportSQL.claim(id: id, owner: owner, now: now, leaseUntil: leaseUntil)) { files?.remove(job: id) }
    }

    public func appendExportChunk(_ chunk: ExportChunk, owner: String, progress: String, leaseUntil: Timestamp) async throws(TrustStoreError) -> Bool {
        guard let files = exportFiles else {
            return try await runExportSteps(ExportSQL.append(chunk, owner: owner, progress: progress, leaseUntil: leaseUntil))
        }
        // The row (its line count), then the bytes at the end of the file, in the transaction
        // that checked the lease: a failed write rolls the row back (and fails the job).
        return try await runExportSteps(ExportSQL.append(chunk, owner: owner, progress: progress, leaseUntil: leaseUntil, bytesInDatabase: false)) {
            () throws(TrustStoreError) in try files.append(chunk.bytes, job: chunk.jobID, type: chunk.type)
        }
    }

    public func renewExportJob(id: String, owner: String, progress: String, leaseUntil: Timestamp) async throws(TrustStoreError) -> Bool {
        let statement = ExportSQL.renew(id: id, owner: owner, progress: progress, leaseUntil: leaseUntil)
        return try await write { db in try Self.fetchOne(db, statement) != nil }
    }

    public func finishExportJob(id: String, owner: String, status: ExportJobStatus, error: String?, at: Timestamp) async throws(TrustStoreError) -> Bool {
        let statement = ExportSQL.finish(id: id, owner: owner, status: status, error: error, at: at)
        let files = status == .completed ? exportFiles : nil
        return try await write { db in
            guard try Self.fetchOne(db, statement) != nil else { return false }
            // A completed job's files are on the disk before it says so.
            try files?.sync(job: id)
            return true
        }
    }

    public func exportOutputs(id: String) async throws(TrustStoreError) -> [ExportOutput] {
        let statement = ExportSQL.outputs(id: id)
        return try await read { db in
            try Self.fetchAll(db, statement).map { row in ExportOutput(type: row[0], count: row[1], chunks: row[2]) }
        }
    }

    public func exportChunk(id: String, type: String, sequence: Int) async throws(TrustStoreError) -> [UInt8]? {
        let statement = ExportSQL.chunk(id: id, type: type, sequence: sequence)
        return try await read { db in
            try Self.fetchOne(db, statement).map { row -> [UInt8] in
                let data: Data = row[0]
                return [UInt8](data)
            }
        }
    }

    public func sendExportFile<Piece: ExportFilePiece>(id: String, output: ExportOutput, to send: (Piece) async throws -> Void) async throws {
        guard let files = exportFiles, let descriptor = try await files.openForReading(job: id, type: output.type) else {
            // No file on disk: a job written before the files went to disk (or in memory).
            try await sendDatabaseChunks(id: id, output: output, to: send)
            return
        }
        // The open file stays readable when the job is deleted meanwhile. Each piece is read
        // from disk, straight into the caller's memory, while the one before it is sent; the
        // file is closed only once no read is left.
        func piece(at offset: Int64) -> Task<Piece, any Error> {
            Task { try await files.read(descriptor, at: offset, count: Piece.readSize, as: Piece.self) }
        }
        var next = piece(at: 0)
        do {
            var offset: Int64 = 0
            while true {
                let bytes = try await next.value
                if bytes.count == 0 { break }
                offset += Int64(bytes.count)
                next = piece(at: offset)
                try await send(bytes)
            }
        } catch {
            _ = try? await next.value
            await files.closeFile(descriptor)
            throw error
        }
        await files.closeFile(descriptor)
    }

    /// Sends the file's chunks stored in the database one at a time, each copied once from
    /// SQLite's row straight into the caller's piece (not into `Data` and an array first).
    private func sendDatabaseChunks<Piece: ExportFilePiece>(id: String, output: ExportOutput, to send: (Piece) async throws -> Void) async throws {
        for sequence in 0..<output.chunks {
            let statement = ExportSQL.chunk(id: id, type: output.type, sequence: sequence)
            let piece: Piece? = try await read { db in
                let rows = try Row.fetchCursor(db, sql: statement.sql, arguments: Self.arguments(statement.arguments))
                guard let row = try rows.next() else { return nil }
                return try row.withUnsafeData(atIndex: 0) { data -> Piece? in
                    guard let data, !data.isEmpty else { return nil }
                    return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in Piece(copying: bytes) }
                }
            }
            guard let piece else { throw ExportFileMissing(job: id, type: output.type) }
            try await send(piece)
        }
    }

    public func deleteExportJob(id: String) async throws(TrustStoreError) -> Bool {
        let statements = ExportSQL.delete(id: id)
        let files = exportFiles
        return try await write { db in
            try Self.execute(db, statements[0])
            guard try Self.fetchOne(db, statements[1]) != nil else { return false }
            files?.remove(job: id)
            return true
        }
    }

    public func deleteExpiredExportJobs(now: Timestamp) async throws(TrustStoreError) -> Int {
        let statements = ExportSQL.deleteExpired(now: now)
        let files = exportFiles
        return try await write { db in
            try Self.execute(db, statements[0])
            let deleted = try Self.fetchAll(db, statements[1]).count
            // The folders of the jobs deleted, and any left without a job.
            if let files {
                let jobs = try Self.fetchAll(db, ExportSQL.jobIDs()).map { row -> String in row[0] }
                files.removeAll(except: Set(jobs))
            }
            return deleted
        }
    }

    public func claimableExportJobs(now: Timestamp) async throws(TrustStoreError) -> [String] {
        let statement = ExportSQL.claimable(now: now)
        return try await read { db in try Self.fetchAll(db, statement).map { row -> String in row[0] } }
    }

    public func createExportGroup(_ group: StoredExportGroup) async throws(TrustStoreError) {
        let statement = ExportSQL.createGroup(group)
        guard try await write({ db in try Self.fetchOne(db, statement) != nil }) else { throw .conflict("export_group \(group.id.prefix(8))") }
    }

    public func exportGroup(id: String) async throws(TrustStoreError) -> StoredExportGroup? {
        let statement = ExportSQL.group(id: id)
        return try await pointRead { db in
            try Self.fetchOne(db, statement).map { row in
                StoredExportGroup(id: row[0], client: try SQLiteTrustRows.csi(row[1], "export_group"), members: ExportSQL.members(row[2]),
                                  createdAt: Timestamp(millisecondsSince1970: row[3]))
            }
        }
    }

    /// Runs the statements in one transaction, then `afterwards` (file work) inside it; false
    /// (rolled back) when the first, a conditional update, returned no row.
    private func runExportSteps(_ statements: [SQLStatement],
                                afterwards: @escaping @Sendable () throws(TrustStoreError) -> Void = {}) async throws(TrustStoreError) -> Bool {
        let missed = "export_job: no row"
        do {
            try await write { db in
                guard let first = statements.first, try Self.fetchOne(db, first) != nil else { throw TrustStoreError.conflict(missed) }
                for statement in statements.dropFirst() { try Self.execute(db, statement) }
                try afterwards()
            }
            return true
        } catch .conflict(let what) where what == missed {
            return false
        }
    }

    static func exportJob(_ row: Row) throws -> StoredExportJob {
        let since: Int64? = row[7], leaseUntil: Int64? = row[12]
        return StoredExportJob(id: row[0], client: try SQLiteTrustRows.csi(row[1], "export_job"), tokenID: row[2], scope: row[3], kind: row[4],
                               request: row[5], types: ExportSQL.types(row[6]), since: since.map(Timestamp.init(millisecondsSince1970:)),
                               status: ExportSQL.status(row[8]), transactionTime: Timestamp(millisecondsSince1970: row[9]),
                               expiresAt: Timestamp(millisecondsSince1970: row[10]), leaseOwner: row[11],
                               leaseUntil: leaseUntil.map(Timestamp.init(millisecondsSince1970:)), progress: row[13], error: row[14])
    }
}
