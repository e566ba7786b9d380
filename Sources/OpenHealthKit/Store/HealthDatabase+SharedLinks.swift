import Foundation
import GRDB

extension HealthDatabase {
    /// The keyed hash a shared link's row is found by.
    func sharedLinkKey(_ id: String) -> Data {
        cipher.indexHash("shared-link", id)
    }

    /// Saves (inserts or replaces) a shared link's sealed row.
    func saveSharedLink(_ link: HKSharedLink) async throws {
        let key = sharedLinkKey(link.id)
        var plaintext = Data()
        let id = Data(link.id.utf8)
        withUnsafeBytes(of: UInt32(id.count).littleEndian) { plaintext.append(contentsOf: $0) }
        plaintext.append(id)
        plaintext.append(link.state)
        let sealed = try cipher.sealSharedLink(plaintext, context: key)
        try await writeAsync { db in
            try db.execute(sql: "INSERT OR REPLACE INTO shared_link (id_hash, sealed) VALUES (?, ?)", arguments: [key, sealed])
        }
    }

    /// Forgets a shared link; whether it was there.
    func removeSharedLink(id: String) async throws -> Bool {
        let key = sharedLinkKey(id)
        return try await writeAsync { db in
            try db.execute(sql: "DELETE FROM shared_link WHERE id_hash = ?", arguments: [key])
            return db.changesCount > 0
        }
    }

    /// The shared link of that id, if any.
    func sharedLink(id: String) async throws -> HKSharedLink? {
        let key = sharedLinkKey(id)
        return try await readAsync { db in
            guard let sealed = try Data.fetchOne(db, sql: "SELECT sealed FROM shared_link WHERE id_hash = ?", arguments: [key]) else {
                return nil
            }
            return try self.openSharedLink(sealed, key: key)
        }
    }

    /// Every shared link, by id.
    func sharedLinks() async throws -> [HKSharedLink] {
        try await readAsync { db in
            try Row.fetchAll(db, sql: "SELECT id_hash, sealed FROM shared_link").map { row in
                let key: Data = row["id_hash"]
                let sealed: Data = row["sealed"]
                return try self.openSharedLink(sealed, key: key)
            }.sorted { $0.id < $1.id }
        }
    }

    private func openSharedLink(_ sealed: Data, key: Data) throws -> HKSharedLink {
        let plaintext = try cipher.openSharedLink(sealed, context: key)
        guard plaintext.count >= 4 else { throw HealthStoreError(.corruptDatabase, "a shared link is malformed") }
        let start = plaintext.startIndex
        let length = plaintext[start..<(start + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
        guard plaintext.count - 4 >= length, let id = String(data: plaintext[(start + 4)..<(start + 4 + length)], encoding: .utf8) else {
            throw HealthStoreError(.corruptDatabase, "a shared link is malformed")
        }
        return HKSharedLink(id: id, state: Data(plaintext[(start + 4 + length)...]))
    }
}
