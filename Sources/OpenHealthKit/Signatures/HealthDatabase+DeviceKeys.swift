import Crypto
import Foundation
import GRDB
import SampleSignatures

/// The trusted device keys: rows of `store_info` keyed `device_key:<identifier>`, each value
/// sealed with the store key (bound to its row name), so that only the key holder can add a
/// key the store will trust.
extension HealthDatabase {
    private static let deviceKeyPrefix = "device_key:"

    private struct StoredDeviceKey: Codable {
        var name: String
        var publicKey: Data
        var registeredAt: Double
    }

    /// Records a key; registering it again renames it.
    func registerDeviceKey(_ key: HKDeviceSigningKey) async throws {
        let row = Self.deviceKeyPrefix + key.identifier.description
        let stored = StoredDeviceKey(name: key.name, publicKey: key.publicKey.x963Representation,
                                     registeredAt: key.registeredAt.timeIntervalSinceReferenceDate)
        let sealed = try cipher.seal(JSONEncoder().encode(stored), context: Data(row.utf8))
        try await writeAsync { db in
            try db.execute(sql: "INSERT OR REPLACE INTO store_info (key, value) VALUES (?, ?)", arguments: [row, sealed])
        }
    }

    /// Forgets a key. Returns whether it was registered.
    func removeDeviceKey(_ identifier: DeviceKeyIdentifier) async throws -> Bool {
        let row = Self.deviceKeyPrefix + identifier.description
        return try await writeAsync { db in
            try db.execute(sql: "DELETE FROM store_info WHERE key = ?", arguments: [row])
            return db.changesCount > 0
        }
    }

    /// The registered keys, by name.
    func deviceKeys() async throws -> [HKDeviceSigningKey] {
        let rows = try await readAsync { db in
            try Row.fetchAll(db, sql: "SELECT key, value FROM store_info WHERE key LIKE 'device\\_key:%' ESCAPE '\\'")
                .map { row -> (String, Data) in (row["key"], row["value"]) }
        }
        return try rows.map { name, sealed in
            guard let opened = try? cipher.open(sealed, context: Data(name.utf8)),
                  let stored = try? JSONDecoder().decode(StoredDeviceKey.self, from: opened),
                  let publicKey = try? P256.Signing.PublicKey(x963Representation: stored.publicKey),
                  name == Self.deviceKeyPrefix + DeviceKeyIdentifier(publicKey).description else {
                throw HealthStoreError(.corruptDatabase, "a device key record is malformed")
            }
            return HKDeviceSigningKey(publicKey: publicKey, name: stored.name,
                                      registeredAt: Date(timeIntervalSinceReferenceDate: stored.registeredAt))
        }.sorted { ($0.name, $0.identifier.description) < ($1.name, $1.identifier.description) }
    }
}
