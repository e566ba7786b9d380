import FhirBlocks
import FhirBlocksStore
import GRDB

extension SQLiteTrustStore {
    /// The last recorded writer of each resource of `type` in `patient`'s compartment, with the
    /// version it wrote (table `fhir_resource_writer`, migration `v8-fhir-resource-writer`).
    public func resourceWriters(patient: CsiGuid, type: String) async throws(TrustStoreError) -> [String: FHIRResourceWriter] {
        try await read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, version_id, writer FROM fhir_resource_writer WHERE patient = ? AND type = ?",
                                        arguments: [patient.rawValue, type])
            var writers: [String: FHIRResourceWriter] = [:]
            for row in rows {
                let text: String = row[2]
                guard let writer = CsiGuid(text) else { throw TrustStoreError.corrupt("fhir_resource_writer") }
                writers[row[0]] = FHIRResourceWriter(versionID: row[1], writer: writer)
            }
            return writers
        }
    }
}

/// Keeps `fhir_resource_writer` in step with the resources a commit writes.
enum SQLiteResourceWriters {
    /// The table (migration `v8-fhir-resource-writer`): the writer of the version of a resource
    /// named, one row per resource, replaced by each write that names its writer.
    static let schema = """
        CREATE TABLE fhir_resource_writer (
            patient TEXT NOT NULL, type TEXT NOT NULL, id TEXT NOT NULL, version_id INTEGER NOT NULL, writer TEXT NOT NULL,
            PRIMARY KEY (patient, type, id)) WITHOUT ROWID
        """

    /// Records who wrote `write`'s version (nothing when the write names no writer: then no
    /// writer is known for the new version, since a row names the version it is about).
    static func record(_ write: FHIRResourceWrite, in db: Database) throws {
        guard let writer = write.writer else { return }
        let record = write.record
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO fhir_resource_writer (patient, type, id, version_id, writer) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [record.patient.rawValue, record.type, record.id, record.versionID, writer.rawValue])
    }
}
