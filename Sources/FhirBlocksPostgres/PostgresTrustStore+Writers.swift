import FhirBlocks
import FhirBlocksStore
import Logging
import PostgresNIO

extension PostgresTrustStore {
    /// The last recorded writer of each resource of `type` in `patient`'s compartment, with the
    /// version it wrote (table `fhir_resource_writer`, ``PostgresResourceWriters/schema``).
    public func resourceWriters(patient: CsiGuid, type: String) async throws(TrustStoreError) -> [String: FHIRResourceWriter] {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT id, version_id, writer FROM fhir_resource_writer WHERE patient = \(patient.rawValue) AND type = \(type)
                """, logger: logger).collect()
            var writers: [String: FHIRResourceWriter] = [:]
            for row in rows {
                let (id, version, text) = try PostgresRows.decode(row, as: (String, Int64, String).self, table: "fhir_resource_writer")
                guard let writer = CsiGuid(text), let versionID = Int(exactly: version) else { throw TrustStoreError.corrupt("fhir_resource_writer") }
                writers[id] = FHIRResourceWriter(versionID: versionID, writer: writer)
            }
            return writers
        }
    }
}

/// Keeps `fhir_resource_writer` in step with the resources a commit writes.
enum PostgresResourceWriters {
    /// The migration that adds the table: the writer of the version of a resource named, one
    /// row per resource, replaced by each write that names its writer.
    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS fhir_resource_writer (
            patient text NOT NULL,
            type text NOT NULL,
            id text NOT NULL,
            version_id bigint NOT NULL,
            writer text NOT NULL,
            PRIMARY KEY (patient, type, id)
        )
        """,
    ]

    /// Records who wrote `write`'s version (nothing when the write names no writer).
    static func record(_ write: FHIRResourceWrite, on connection: PostgresConnection, logger: Logger) async throws {
        guard let writer = write.writer else { return }
        let record = write.record
        try await connection.query("""
            INSERT INTO fhir_resource_writer (patient, type, id, version_id, writer)
            VALUES (\(record.patient.rawValue), \(record.type), \(record.id), \(Int64(record.versionID)), \(writer.rawValue))
            ON CONFLICT (patient, type, id) DO UPDATE SET version_id = EXCLUDED.version_id, writer = EXCLUDED.writer
            """, logger: logger)
    }
}
