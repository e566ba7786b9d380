import Foundation
import GRDB

extension HealthDatabase {
    /// The keyed hash a connection's row is found by.
    func connectionKey(_ name: String) -> Data {
        cipher.indexHash("record-connection", name)
    }

    /// Writes (inserts or replaces) a connection's sealed row inside a transaction.
    func writeConnection(_ db: Database, _ connection: HKHealthRecordsConnection) throws {
        let key = connectionKey(connection.name)
        var plaintext = Data()
        let name = Data(connection.name.utf8)
        withUnsafeBytes(of: UInt32(name.count).littleEndian) { plaintext.append(contentsOf: $0) }
        plaintext.append(name)
        plaintext.append(connection.state)
        let sealed = try cipher.sealConnection(plaintext, context: key)
        try db.execute(sql: "INSERT OR REPLACE INTO record_connection (name_hash, sealed) VALUES (?, ?)", arguments: [key, sealed])
    }

    /// Saves a connection on its own.
    func saveConnection(_ connection: HKHealthRecordsConnection) async throws {
        try await writeAsync { db in try self.writeConnection(db, connection) }
    }

    /// Forgets a connection; whether it was there.
    func removeConnection(named name: String) async throws -> Bool {
        let key = connectionKey(name)
        return try await writeAsync { db in
            try db.execute(sql: "DELETE FROM record_connection WHERE name_hash = ?", arguments: [key])
            return db.changesCount > 0
        }
    }

    /// Every connection, by name.
    func connections() async throws -> [HKHealthRecordsConnection] {
        try await readAsync { db in
            try Row.fetchAll(db, sql: "SELECT name_hash, sealed FROM record_connection").map { row in
                let key: Data = row["name_hash"]
                let sealed: Data = row["sealed"]
                return try self.openConnection(sealed, key: key)
            }.sorted { $0.name < $1.name }
        }
    }

    private func openConnection(_ sealed: Data, key: Data) throws -> HKHealthRecordsConnection {
        let plaintext = try cipher.openConnection(sealed, context: key)
        guard plaintext.count >= 4 else { throw HealthStoreError(.corruptDatabase, "a health-records connection is malformed") }
        let start = plaintext.startIndex
        let length = plaintext[start..<(start + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
        guard plaintext.count - 4 >= length, let name = String(data: plaintext[(start + 4)..<(start + 4 + length)], encoding: .utf8) else {
            throw HealthStoreError(.corruptDatabase, "a health-records connection is malformed")
        }
        return HKHealthRecordsConnection(name: name, state: Data(plaintext[(start + 4 + length)...]))
    }
}
