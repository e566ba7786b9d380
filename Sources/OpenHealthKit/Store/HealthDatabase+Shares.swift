import Foundation
import GRDB

extension HealthDatabase {
    /// Records one execution of a verifiable-record query by an app: the records shared (none
    /// when the person declined). The record UUIDs are sealed.
    func recordShare(bundleIdentifier: String, appName: String, records: [UUID], declined: Bool, at date: Date) async throws {
        var plaintext = Data(capacity: records.count * 16)
        for uuid in records { plaintext.append(uuid.databaseBlob) }
        let sealedRecords = plaintext
        try await writeAsync { db in
            let sealed = try cipher.seal(sealedRecords, context: Data("share:\(bundleIdentifier)".utf8))
            try db.execute(sql: """
                INSERT INTO verifiable_record_share (bundle_identifier, app_name, shared_at, declined, sealed) VALUES (?, ?, ?, ?, ?)
                """, arguments: [bundleIdentifier, appName, date.timeIntervalSinceReferenceDate, declined, sealed])
        }
    }

    /// Every recorded share, oldest first.
    func shares() async throws -> [HKVerifiableRecordShare] {
        try await readAsync { db in
            try Row.fetchAll(db, sql: """
                SELECT bundle_identifier, app_name, shared_at, declined, sealed FROM verifiable_record_share ORDER BY id
                """).map { row in
                let bundle: String = row["bundle_identifier"]
                let sealed: Data = row["sealed"]
                let plaintext = try cipher.open(sealed, context: Data("share:\(bundle)".utf8))
                guard plaintext.count % 16 == 0 else { throw HealthStoreError(.corruptDatabase, "a share record is malformed") }
                var uuids: [UUID] = []
                var offset = plaintext.startIndex
                while offset < plaintext.endIndex {
                    guard let uuid = UUID(databaseBlob: plaintext[offset..<(offset + 16)]) else {
                        throw HealthStoreError(.corruptDatabase, "a share record is malformed")
                    }
                    uuids.append(uuid)
                    offset += 16
                }
                return HKVerifiableRecordShare(bundleIdentifier: bundle, appName: row["app_name"],
                                               date: Date(timeIntervalSinceReferenceDate: row["shared_at"]),
                                               recordUUIDs: uuids, declined: row["declined"])
            }
        }
    }
}
