import Foundation
import GRDB

extension HealthDatabase {
    /// Merges `additions` into the metadata of stored clinical records, in place, in one
    /// transaction: each record keeps its row, UUID, dates, source, anchor and resource; its
    /// sealed payload is sealed again with the merged metadata, its metadata index rows are
    /// written again, and its content version follows (so a later import of the same content
    /// with this metadata is already stored). UUIDs of no stored clinical record are skipped.
    /// - Returns: how many records changed.
    func addClinicalRecordMetadata(_ additions: [UUID: [String: MetadataCodec.Value]]) async throws -> Int {
        guard !additions.isEmpty else { return 0 }
        return try await writeAsync { db in
            let lookup = try db.cachedStatement(sql: """
                SELECT s.id, \(SampleTypeCode.identifier(of: "s.type")), s.start, s."end", s.sealed, src.bundle_identifier
                FROM sample s JOIN source src ON src.id = s.source_id
                WHERE s.uuid = ? AND s.kind = ? AND s.parent_id IS NULL
                """)
            let update = try db.cachedStatement(sql: "UPDATE sample SET sealed = ?, sync_version = ? WHERE id = ?")
            let unindex = try db.cachedStatement(sql: "DELETE FROM metadata_index WHERE sample_id = ?")
            var index = try MetadataIndexWriter(db)
            var changed = 0
            for (uuid, added) in additions.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
                guard let row = try Row.fetchOne(lookup, arguments: [uuid.databaseBlob, SampleKind.clinicalRecord.rawValue]) else { continue }
                let rowID: Int64 = row[0]
                let type: String = row[1]
                let start: Double = row[2]
                let end: Double = row[3]
                let sealed: Data = row[4]
                let bundleIdentifier: String = row[5]
                let context = RecordContext(uuid: uuid, type: type, kind: .clinicalRecord, start: start, end: end)
                var payload = try SamplePayload(decoding: self.cipher.open(sealed, context: context.bytes))
                let current = try payload.metadata.map(MetadataCodec.decode) ?? [:]
                let merged = current.merging(added) { _, new in new }
                guard merged != current else { continue }
                payload.metadata = merged.isEmpty ? nil : try MetadataCodec.encode(merged)
                let version = SamplePreparer.contentVersion(cipher: self.cipher, bundleIdentifier: bundleIdentifier, kind: .clinicalRecord, type: type,
                                                            start: start, end: end, payload: payload)
                let resealed = try self.cipher.seal(payload.encodedBytes(), context: context.bytes)
                update.setUncheckedArguments([resealed, version, rowID])
                try update.execute()
                try unindex.execute(arguments: [rowID])
                for entry in SamplePreparer.metadataIndex(merged, cipher: self.cipher) { try index.write(entry, rowID: rowID) }
                changed += 1
            }
            return changed
        }
    }

    /// Whether the one-time pass `name` has run on this store (a `store_info` row).
    func hasCompletedPass(_ name: String) async throws -> Bool {
        try await readAsync { db in
            try Int64.fetchOne(db, sql: "SELECT 1 FROM store_info WHERE key = ?", arguments: ["pass:" + name]) != nil
        }
    }

    /// Notes that the one-time pass `name` has run on this store.
    func completePass(_ name: String) async throws {
        try await writeAsync { db in
            try db.execute(sql: "INSERT OR IGNORE INTO store_info (key, value) VALUES (?, 1)", arguments: ["pass:" + name])
        }
    }

    /// The keyed hash a health-record patient's row is found by.
    private func recordPatientKey(_ reference: String) -> Data {
        cipher.indexHash("record-patient", reference)
    }

    /// Saves (inserts or replaces) what the store keeps about the patient `reference` names,
    /// sealed and bound to the keyed hash of the reference.
    func saveRecordPatient(reference: String, details: Data) async throws {
        let key = recordPatientKey(reference)
        let sealed = try cipher.seal(details, context: Data("record-patient".utf8) + key)
        try await writeAsync { db in
            try db.execute(sql: "INSERT OR REPLACE INTO record_patient (reference_hash, sealed) VALUES (?, ?)", arguments: [key, sealed])
        }
    }

    /// What the store keeps about the patients `references` name, by reference (those it keeps
    /// nothing about are left out).
    func recordPatients(_ references: [String]) async throws -> [String: Data] {
        let keys = Set(references).map { ($0, recordPatientKey($0)) }
        return try await readAsync { db in
            var found: [String: Data] = [:]
            let lookup = try db.cachedStatement(sql: "SELECT sealed FROM record_patient WHERE reference_hash = ?")
            for (reference, key) in keys {
                guard let sealed = try Data.fetchOne(lookup, arguments: [key]) else { continue }
                found[reference] = try self.cipher.open(sealed, context: Data("record-patient".utf8) + key)
            }
            return found
        }
    }
}
