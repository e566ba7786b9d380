import FhirBlocks
import FhirBlocksStore
import Logging
import NIOCore
import PostgresNIO

/// The Bulk Data export's jobs and files (``ExportStore``): ``ExportSQL``'s statements, each
/// write one transaction, so every server on the database sees the same jobs and files.
extension PostgresTrustStore {
    public func createExportJob(_ job: StoredExportJob) async throws(TrustStoreError) {
        guard try await !rows(ExportSQL.create(job)).isEmpty else { throw .conflict("export_job \(job.id.prefix(8))") }
    }

    public func exportJob(id: String) async throws(TrustStoreError) -> StoredExportJob? {
        try await rows(ExportSQL.job(id: id)).first.map(Self.exportJob)
    }

    public func claimExportJob(id: String, owner: String, now: Timestamp, leaseUntil: Timestamp) async throws(TrustStoreError) -> Bool {
        try await runExportSteps(ExportSQL.claim(id: id, owner: owner, now: now, leaseUntil: leaseUntil))
    }

    public func appendExportChunk(_ chunk: ExportChunk, owner: String, progress: String, leaseUntil: Timestamp) async throws(TrustStoreError) -> Bool {
        try await runExportSteps(ExportSQL.append(chunk, owner: owner, progress: progress, leaseUntil: leaseUntil))
    }

    public func renewExportJob(id: String, owner: String, progress: String, leaseUntil: Timestamp) async throws(TrustStoreError) -> Bool {
        try await !rows(ExportSQL.renew(id: id, owner: owner, progress: progress, leaseUntil: leaseUntil)).isEmpty
    }

    public func finishExportJob(id: String, owner: String, status: ExportJobStatus, error: String?, at: Timestamp) async throws(TrustStoreError) -> Bool {
        try await !rows(ExportSQL.finish(id: id, owner: owner, status: status, error: error, at: at)).isEmpty
    }

    public func exportOutputs(id: String) async throws(TrustStoreError) -> [ExportOutput] {
        var outputs: [ExportOutput] = []
        for row in try await rows(ExportSQL.outputs(id: id)) {
            let (type, count, chunks) = try PostgresRows.decode(row, as: (String, Int64, Int64).self, table: "export_chunk")
            outputs.append(ExportOutput(type: type, count: Int(count), chunks: Int(chunks)))
        }
        return outputs
    }

    public func exportChunk(id: String, type: String, sequence: Int) async throws(TrustStoreError) -> [UInt8]? {
        guard let row = try await rows(ExportSQL.chunk(id: id, type: type, sequence: sequence)).first else { return nil }
        let (data) = try PostgresRows.decode(row, as: (ByteBuffer).self, table: "export_chunk")
        return PostgresRows.bytes(data)
    }

    /// Sends the file's chunks one at a time, each copied once from the row as it arrived
    /// straight into the caller's piece (not into an array first).
    public func sendExportFile<Piece: ExportFilePiece>(id: String, output: ExportOutput, to send: (Piece) async throws -> Void) async throws {
        for sequence in 0..<output.chunks {
            guard let piece: Piece = try await exportPiece(id: id, type: output.type, sequence: sequence) else {
                throw ExportFileMissing(job: id, type: output.type)
            }
            try await send(piece)
        }
    }

    /// One chunk copied into a new piece (the row let go before the piece is sent); nil when
    /// the chunk is not stored or holds no bytes.
    private func exportPiece<Piece: ExportFilePiece>(id: String, type: String, sequence: Int) async throws(TrustStoreError) -> Piece? {
        guard let row = try await rows(ExportSQL.chunk(id: id, type: type, sequence: sequence)).first else { return nil }
        let (data) = try PostgresRows.decode(row, as: (ByteBuffer).self, table: "export_chunk")
        guard data.readableBytes > 0 else { return nil }
        return data.withUnsafeReadableBytes { Piece(copying: $0) }
    }

    public func deleteExportJob(id: String) async throws(TrustStoreError) -> Bool {
        let statements = ExportSQL.delete(id: id)
        return try await withTransaction { connection, logger in
            try await connection.query(Self.query(statements[0]), logger: logger)
            return try await !connection.query(Self.query(statements[1]), logger: logger).collect().isEmpty
        }
    }

    public func deleteExpiredExportJobs(now: Timestamp) async throws(TrustStoreError) -> Int {
        let statements = ExportSQL.deleteExpired(now: now)
        return try await withTransaction { connection, logger in
            try await connection.query(Self.query(statements[0]), logger: logger)
            return try await connection.query(Self.query(statements[1]), logger: logger).collect().count
        }
    }

    public func claimableExportJobs(now: Timestamp) async throws(TrustStoreError) -> [String] {
        var ids: [String] = []
        for row in try await rows(ExportSQL.claimable(now: now)) {
            let (id) = try PostgresRows.decode(row, as: (String).self, table: "export_job")
            ids.append(id)
        }
        return ids
    }

    public func createExportGroup(_ group: StoredExportGroup) async throws(TrustStoreError) {
        guard try await !rows(ExportSQL.createGroup(group)).isEmpty else { throw .conflict("export_group \(group.id.prefix(8))") }
    }

    public func exportGroup(id: String) async throws(TrustStoreError) -> StoredExportGroup? {
        guard let row = try await rows(ExportSQL.group(id: id)).first else { return nil }
        let table = "export_group"
        let (id, client, members, createdAt) = try PostgresRows.decode(row, as: (String, String, String, Int64).self, table: table)
        return StoredExportGroup(id: id, client: try PostgresRows.csi(client, table: table), members: ExportSQL.members(members),
                                 createdAt: Timestamp(millisecondsSince1970: createdAt))
    }

    // MARK: Plumbing

    /// Runs the statements in one transaction; false (rolled back) when the first, a conditional
    /// update, returned no row.
    private func runExportSteps(_ statements: [SQLStatement]) async throws(TrustStoreError) -> Bool {
        let missed = "export_job: no row"
        do {
            try await withTransaction { connection, logger in
                guard let first = statements.first,
                      try await !connection.query(Self.query(first), logger: logger).collect().isEmpty else { throw TrustStoreError.conflict(missed) }
                for statement in statements.dropFirst() { try await connection.query(Self.query(statement), logger: logger) }
            }
            return true
        } catch .conflict(let what) where what == missed {
            return false
        }
    }

    static func exportJob(_ row: PostgresRow) throws(TrustStoreError) -> StoredExportJob {
        let table = "export_job"
        let (id, client, tokenID, scope, kind, request, types, since, status, transactionTime, expiresAt, leaseOwner, leaseUntil, progress, error) =
            try PostgresRows.decode(row, as: (String, String, String, String, String, String, String, Int64?, String, Int64, Int64, String?, Int64?,
                                              String?, String?).self, table: table)
        return StoredExportJob(id: id, client: try PostgresRows.csi(client, table: table), tokenID: tokenID, scope: scope, kind: kind, request: request,
                               types: ExportSQL.types(types), since: since.map(Timestamp.init(millisecondsSince1970:)), status: ExportSQL.status(status),
                               transactionTime: Timestamp(millisecondsSince1970: transactionTime), expiresAt: Timestamp(millisecondsSince1970: expiresAt),
                               leaseOwner: leaseOwner, leaseUntil: leaseUntil.map(Timestamp.init(millisecondsSince1970:)), progress: progress, error: error)
    }
}
