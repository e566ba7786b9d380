import FhirBlocks

/// The tables and statements of ``ExportStore``, written once for both databases (no I/O),
/// like ``LinkSQL``: `?` placeholders, neutral values, conditional writes with `RETURNING`.
public enum ExportSQL {
    /// Bulk Data export (issue 38): the jobs. `types` is the `_type` list joined by commas.
    public static let exportJob = SQLTable("export_job", [
        SQLColumn("id", .text, primaryKey: true), SQLColumn("client", .text), SQLColumn("token_id", .text), SQLColumn("scope", .text),
        SQLColumn("kind", .text), SQLColumn("request", .text), SQLColumn("types", .text), SQLColumn("since", .int64, nullable: true),
        SQLColumn("status", .text), SQLColumn("transaction_time", .int64), SQLColumn("expires_at", .int64),
        SQLColumn("lease_owner", .text, nullable: true), SQLColumn("lease_until", .int64, nullable: true),
        SQLColumn("progress", .text, nullable: true), SQLColumn("error", .text, nullable: true),
    ])
    /// Bulk Data export: each job's files, one row per chunk of whole NDJSON lines.
    public static let exportChunk = SQLTable("export_chunk", [
        SQLColumn("job_id", .text), SQLColumn("type", .text), SQLColumn("seq", .int64), SQLColumn("line_count", .int64),
        SQLColumn("data", .bytes),
    ], primaryKey: ["job_id", "type", "seq"])

    /// Bulk Data export: the Groups clients create to export (`POST /fhir/Group`); `members` the
    /// patients' csiGuids joined by commas.
    public static let exportGroup = SQLTable("export_group", [
        SQLColumn("id", .text, primaryKey: true), SQLColumn("client", .text), SQLColumn("members", .text), SQLColumn("created_at", .int64),
    ])

    /// The migration that creates the groups' table (`IF NOT EXISTS`).
    static let groupMigration = TrustSchemaMigration("v11-export-group", [
        .table(exportGroup, ifNotExists: Set(SQLDialect.allCases)),
    ])

    /// Inserts the group; a row back unless its id was taken.
    public static func createGroup(_ group: StoredExportGroup) -> SQLStatement {
        SQLStatement("INSERT INTO export_group (id, client, members, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING id",
                     [.text(group.id), .text(group.client.rawValue), .text(group.members.map(\.rawValue).joined(separator: ",")),
                      .integer(group.createdAt.millisecondsSince1970)])
    }

    /// The group with this id: id, client, members, created_at.
    public static func group(id: String) -> SQLStatement {
        SQLStatement("SELECT id, client, members, created_at FROM export_group WHERE id = ?", [.text(id)])
    }

    /// The members of a stored `members` text (a value that is not a csiGuid is dropped).
    public static func members(_ text: String) -> [CsiGuid] {
        text.split(separator: ",").compactMap { CsiGuid(String($0)) }
    }

    /// The migration that creates them (`IF NOT EXISTS`, as every migration after the first may
    /// run again on PostgreSQL).
    static let migration = TrustSchemaMigration("v10-bulk-export", [
        .table(exportJob, ifNotExists: Set(SQLDialect.allCases)),
        .index(SQLIndex("export_job_expires_at", on: "export_job", ["expires_at"]), ifNotExists: true),
        .table(exportChunk, ifNotExists: Set(SQLDialect.allCases)),
    ])

    /// The columns a job is read as, in ``StoredExportJob``'s order.
    public static let jobColumns = """
        id, client, token_id, scope, kind, request, types, since, status, transaction_time, expires_at, lease_owner, lease_until, progress, error
        """

    /// Inserts the job; a row back unless its id was taken.
    public static func create(_ job: StoredExportJob) -> SQLStatement {
        SQLStatement("INSERT INTO export_job (\(jobColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING id",
                     [.text(job.id), .text(job.client.rawValue), .text(job.tokenID), .text(job.scope), .text(job.kind), .text(job.request),
                      .text(job.types.joined(separator: ",")), .integer(job.since?.millisecondsSince1970), .text(job.status.rawValue),
                      .integer(job.transactionTime.millisecondsSince1970), .integer(job.expiresAt.millisecondsSince1970), .text(job.leaseOwner),
                      .integer(job.leaseUntil?.millisecondsSince1970), .text(job.progress), .text(job.error)])
    }

    /// The job with this id.
    public static func job(id: String) -> SQLStatement {
        SQLStatement("SELECT \(jobColumns) FROM export_job WHERE id = ?", [.text(id)])
    }

    /// Takes a queued job, or a running one whose lease ran out (a row back when taken), then
    /// deletes what an earlier holder wrote.
    public static func claim(id: String, owner: String, now: Timestamp, leaseUntil: Timestamp) -> [SQLStatement] {
        [SQLStatement("""
            UPDATE export_job SET status = 'running', lease_owner = ?, lease_until = ?, progress = NULL
            WHERE id = ? AND (status = 'queued' OR (status = 'running' AND lease_until < ?)) RETURNING id
            """, [.text(owner), .integer(leaseUntil.millisecondsSince1970), .text(id), .integer(now.millisecondsSince1970)]),
         SQLStatement("DELETE FROM export_chunk WHERE job_id = ?", [.text(id)])]
    }

    /// Renews the lease and records the progress of the running job `owner` holds; a row back when it does.
    public static func renew(id: String, owner: String, progress: String, leaseUntil: Timestamp) -> SQLStatement {
        SQLStatement("UPDATE export_job SET progress = ?, lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'running' RETURNING id",
                     [.text(progress), .integer(leaseUntil.millisecondsSince1970), .text(id), .text(owner)])
    }

    /// ``renew(id:owner:progress:leaseUntil:)`` (a row back when `owner` holds the job), then inserts the chunk: with its
    /// bytes, or (`bytesInDatabase` false: SQLite, which writes the file to disk) with none (`X''`), its line count only.
    public static func append(_ chunk: ExportChunk, owner: String, progress: String, leaseUntil: Timestamp,
                              bytesInDatabase: Bool = true) -> [SQLStatement] {
        let keys: [SQLValue] = [.text(chunk.jobID), .text(chunk.type), .integer(Int64(chunk.sequence)), .integer(Int64(chunk.lineCount))]
        let insert = bytesInDatabase
            ? SQLStatement("INSERT INTO export_chunk (job_id, type, seq, line_count, data) VALUES (?, ?, ?, ?, ?)", keys + [.bytes(chunk.bytes)])
            : SQLStatement("INSERT INTO export_chunk (job_id, type, seq, line_count, data) VALUES (?, ?, ?, ?, X'')", keys)
        return [renew(id: chunk.jobID, owner: owner, progress: progress, leaseUntil: leaseUntil), insert]
    }

    /// The ids of every stored job (a store that keeps files on disk removes those of no job).
    public static func jobIDs() -> SQLStatement {
        SQLStatement("SELECT id FROM export_job", [])
    }

    /// Finishes the running job `owner` holds (a row back when it does), and moves its expiry to
    /// the retention after `at`: the retention is what the kick-off gave it (`expires_at -
    /// transaction_time`), counted from the job's end, so a job that ran long is still kept that long.
    public static func finish(id: String, owner: String, status: ExportJobStatus, error: String?, at: Timestamp) -> SQLStatement {
        SQLStatement("""
            UPDATE export_job SET status = ?, error = ?, lease_owner = NULL, lease_until = ?, progress = NULL,
            expires_at = ? + (expires_at - transaction_time)
            WHERE id = ? AND lease_owner = ? AND status = 'running' RETURNING id
            """, [.text(status.rawValue), .text(error), .integer(at.millisecondsSince1970), .integer(at.millisecondsSince1970), .text(id),
                  .text(owner)])
    }

    /// The job's files (type, resources, chunks), by type.
    public static func outputs(id: String) -> SQLStatement {
        SQLStatement("SELECT type, CAST(SUM(line_count) AS BIGINT), COUNT(*) FROM export_chunk WHERE job_id = ? GROUP BY type ORDER BY type",
                     [.text(id)])
    }

    /// One chunk's bytes.
    public static func chunk(id: String, type: String, sequence: Int) -> SQLStatement {
        SQLStatement("SELECT data FROM export_chunk WHERE job_id = ? AND type = ? AND seq = ?", [.text(id), .text(type), .integer(Int64(sequence))])
    }

    /// Deletes the job's chunks, then the job (a row back when there was one).
    public static func delete(id: String) -> [SQLStatement] {
        [SQLStatement("DELETE FROM export_chunk WHERE job_id = ?", [.text(id)]),
         SQLStatement("DELETE FROM export_job WHERE id = ? RETURNING id", [.text(id)])]
    }

    /// Which jobs are expired at `now`: past `expires_at`, and neither queued nor running under a
    /// live lease (a job still being worked on is never deleted under its server; its expiry moves
    /// when it finishes, ``finish(id:owner:status:error:at:)``); two `now` placeholders.
    static let expiredCondition = "expires_at <= ? AND status <> 'queued' AND NOT (status = 'running' AND lease_until >= ?)"

    /// Deletes the chunks of the jobs expired at `now`, then the jobs (a row back for each).
    public static func deleteExpired(now: Timestamp) -> [SQLStatement] {
        let values: [SQLValue] = [.integer(now.millisecondsSince1970), .integer(now.millisecondsSince1970)]
        return [SQLStatement("DELETE FROM export_chunk WHERE job_id IN (SELECT id FROM export_job WHERE \(expiredCondition))", values),
                SQLStatement("DELETE FROM export_job WHERE \(expiredCondition) RETURNING id", values)]
    }

    /// The ids of the jobs claimable at `now`.
    public static func claimable(now: Timestamp) -> SQLStatement {
        SQLStatement("SELECT id FROM export_job WHERE status = 'queued' OR (status = 'running' AND lease_until < ?) ORDER BY transaction_time",
                     [.integer(now.millisecondsSince1970)])
    }

    /// The ``ExportJobStatus`` of a stored status text (`failed` for one not known).
    public static func status(_ text: String) -> ExportJobStatus {
        ExportJobStatus(rawValue: text) ?? .failed
    }

    /// The `_type` list of a stored `types` text.
    public static func types(_ text: String) -> [String] {
        text.split(separator: ",").map(String.init)
    }
}
