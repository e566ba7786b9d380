import Foundation
import GRDB

/// A sample's device as a save stores it (v19-devices): its JSON, and the keyed hash of that
/// JSON its `device` row is found by and its sealed record refers to.
struct PreparedDevice: Sendable, Hashable {
    var hash: Data
    var json: Data
}

extension HealthDatabase {
    /// The context a `device` row is sealed with, followed by its hash (so a row moved to
    /// another hash fails to open instead of naming another device).
    static let deviceContext = Data("openhealthkit.device.v1".utf8)

    /// The keyed hash a device's JSON is stored and referred to by (16 bytes).
    static func deviceHash(_ json: Data, cipher: RecordCipher) -> Data {
        cipher.indexHash("device", String(decoding: json, as: UTF8.self))
    }

    /// Stores `device`'s row unless a row of its hash is there: equal devices share one row.
    /// Rows are never deleted with samples (a row may stay unreferenced), so a record, in the
    /// store or in "Recently deleted", always finds its device.
    static func storeDevice(_ db: Database, _ device: PreparedDevice, cipher: RecordCipher) throws {
        let lookup = try db.cachedStatement(sql: "SELECT 1 FROM device WHERE hash = ?")
        guard try Int.fetchOne(lookup, arguments: [device.hash]) == nil else { return }
        let sealed = try cipher.seal(device.json, context: deviceContext + device.hash)
        try db.execute(sql: "INSERT INTO device (hash, sealed) VALUES (?, ?)", arguments: [device.hash, sealed])
    }

    /// The JSON of the device whose row has the keyed hash `reference`.
    static func deviceJSON(_ db: Database, reference: Data, cipher: RecordCipher) throws -> Data {
        let lookup = try db.cachedStatement(sql: "SELECT sealed FROM device WHERE hash = ?")
        guard let sealed = try Data.fetchOne(lookup, arguments: [reference]) else {
            throw HealthStoreError(.corruptDatabase, "a sample refers to a device the store does not have")
        }
        return try cipher.open(sealed, context: deviceContext + reference)
    }
}
