import Crypto
import Foundation
import GRDB
import Testing
@testable import OpenHealthKit

@Suite("Encryption at rest and damaged files")
struct EncryptionAtRestTests {
    /// Every byte of the database and its WAL.
    private func fileBytes(_ folder: TemporaryFolder) -> Data {
        var data = Data()
        for suffix in ["", "-wal", "-shm"] {
            data += FileManager.default.contents(atPath: folder.database.path + suffix) ?? Data()
        }
        return data
    }

    @Test("Values, metadata and device names never appear in the file in the clear")
    func noPlaintext() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let secretNote = "PATIENT-NOTE-7f3a9c"
        let device = HKDevice(name: "DEVICE-NAME-55aa", manufacturer: nil, model: nil, hardwareVersion: nil, firmwareVersion: nil,
                              softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil)
        let value = 12_345.678_9
        try await store.save(HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: value),
                                              start: Samples.reference, end: Samples.reference.addingTimeInterval(60), device: device,
                                              metadata: ["note": secretNote, HKMetadataKeySyncIdentifier: "SYNC-ID-991",
                                                         HKMetadataKeySyncVersion: 1]))
        let bytes = fileBytes(folder)
        #expect(!bytes.isEmpty)
        for needle in [secretNote, "DEVICE-NAME-55aa", "SYNC-ID-991", "note"] {
            #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) is stored in the clear")
        }
        var bits = value.bitPattern.littleEndian
        let littleEndian = Data(bytes: &bits, count: 8)
        var bigBits = value.bitPattern.bigEndian
        let bigEndian = Data(bytes: &bigBits, count: 8)
        #expect(bytes.range(of: littleEndian) == nil && bytes.range(of: bigEndian) == nil)
        // What queries need stays findable: the type identifier is in the clear.
        #expect(bytes.range(of: Data("HKQuantityTypeIdentifierStepCount".utf8)) != nil)
    }

    @Test("A wrong key is a clear error, never garbage, and the data survives for the right key")
    func wrongKey() async throws {
        let folder = TemporaryFolder()
        let right = SymmetricKey(size: .bits256)
        try await TestStores.owner(folder, key: .key(right)).save(Samples.steps(42, at: 0))
        let wrong = TestStores.owner(folder, key: .key(SymmetricKey(size: .bits256)))
        #expect { try wrong.open() } throws: { ($0 as? HealthStoreError)?.kind == .wrongKey }
        await #expect { _ = try await wrong.runSampleQuery(HKQuantityType(.stepCount)) } throws: {
            ($0 as? HealthStoreError)?.kind == .wrongKey
        }
        await #expect(throws: HealthStoreError.self) { try await wrong.save(Samples.steps(1, at: 0)) }
        let again = try await TestStores.owner(folder, key: .key(right)).runSampleQuery(HKQuantityType(.stepCount))
        #expect((again.first as? HKQuantitySample)?.quantity.doubleValue(for: .count()) == 42)
    }

    @Test("A passphrase store opens with the passphrase only")
    func passphrase() async throws {
        let folder = TemporaryFolder()
        try await TestStores.owner(folder, key: .passphrase("correct horse battery staple")).save(Samples.steps(7, at: 0))
        #expect { try TestStores.owner(folder, key: .passphrase("Correct horse battery staple")).open() } throws: {
            ($0 as? HealthStoreError)?.kind == .wrongKey
        }
        let samples = try await TestStores.owner(folder, key: .passphrase("correct horse battery staple"))
            .runSampleQuery(HKQuantityType(.stepCount))
        #expect(samples.count == 1)
        // The salt and rounds are stored with the database, not the passphrase.
        let queue = try DatabaseQueue(path: folder.database.path)
        let kdf = try await queue.read { db in try Data.fetchOne(db, sql: "SELECT value FROM store_info WHERE key = 'kdf'") }
        let parameters = try JSONDecoder().decode(KeyDerivationParameters.self, from: try #require(kdf))
        #expect(parameters.rounds >= 210_000 && parameters.salt.count == 16)
    }

    @Test("A missing key file for an existing store is an error, not a new key")
    func missingKeyFile() async throws {
        let folder = TemporaryFolder()
        try await TestStores.owner(folder).save(Samples.steps(1, at: 0))
        try FileManager.default.removeItem(at: folder.keyFile)
        #expect { try TestStores.owner(folder).open() } throws: { ($0 as? HealthStoreError)?.kind == .keyUnavailable }
        #expect(!FileManager.default.fileExists(atPath: folder.keyFile.path))
    }

    @Test("The key file is created private to its owner")
    func keyFilePermissions() async throws {
        let folder = TemporaryFolder()
        try TestStores.owner(folder).open()
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.keyFile.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test("A key file other users can read or write is refused, and works again once private")
    func openKeyFileRefused() async throws {
        let folder = TemporaryFolder()
        try await TestStores.owner(folder).save(Samples.steps(10, at: 0))
        for mode in [0o644, 0o640, 0o602] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: folder.keyFile.path)
            do {
                try TestStores.owner(folder).open()
                Issue.record("a key file with mode \(String(mode, radix: 8)) was accepted")
            } catch let error as HealthStoreError {
                #expect(error.kind == .keyUnavailable)
                #expect(error.description.contains("chmod 600"))
            }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.keyFile.path)
        #expect(try await TestStores.owner(folder).runSampleQuery(HKQuantityType(.stepCount)).count == 1)
    }

    @Test("A corrupted database file is reported and left untouched")
    func corruptFile() async throws {
        let folder = TemporaryFolder()
        try await TestStores.owner(folder).save((0..<200).map { Samples.steps(Double($0), at: Double($0) * 60) })
        // Checkpoint the WAL into the main file, then overwrite the header and some pages.
        let queue = try DatabaseQueue(path: folder.database.path)
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        var bytes = try Data(contentsOf: folder.database)
        for index in 0..<min(bytes.count, 4096) { bytes[index] = UInt8(truncatingIfNeeded: index &* 31) }
        try bytes.write(to: folder.database)
        let damaged = try Data(contentsOf: folder.database)

        let store = TestStores.owner(folder)
        #expect { try store.open() } throws: { ($0 as? HealthStoreError)?.kind == .corruptDatabase }
        await #expect(throws: HealthStoreError.self) { _ = try await store.runSampleQuery(HKQuantityType(.stepCount)) }
        #expect(try Data(contentsOf: folder.database) == damaged, "the damaged file must not be rewritten")
    }

    @Test("Another application's SQLite file is refused, not adopted")
    func foreignDatabase() async throws {
        let folder = TemporaryFolder()
        let queue = try DatabaseQueue(path: folder.database.path)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('x')") }
        try queue.close()
        #expect { try TestStores.owner(folder).open() } throws: { ($0 as? HealthStoreError)?.kind == .corruptDatabase }
        let check = try DatabaseQueue(path: folder.database.path)
        #expect(try await check.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM notes") } == 1)
    }

    @Test("A sealed record altered outside the store fails authentication instead of returning wrong data")
    func tamperedRecord() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.save([Samples.steps(10, at: 0), Samples.steps(20, at: 600)])
        let queue = try DatabaseQueue(path: folder.database.path)
        try await queue.write { db in
            // Swap the sealed blobs of the two rows: each is bound to its own UUID.
            let rows = try Row.fetchAll(db, sql: "SELECT id, sealed FROM sample ORDER BY id")
            try db.execute(sql: "UPDATE sample SET sealed = ? WHERE id = ?", arguments: [rows[1]["sealed"] as Data, rows[0]["id"] as Int64])
        }
        try queue.close()
        await #expect { _ = try await TestStores.owner(folder).runSampleQuery(HKQuantityType(.stepCount)) } throws: {
            ($0 as? HealthStoreError)?.kind == .tamperedRecord
        }
    }

    @Test("A block predicate cannot be translated and says so")
    func unsupportedPredicate() async throws {
        let store = TestStores.memory()
        await #expect { _ = try await store.runSampleQuery(HKQuantityType(.stepCount), predicate: NSPredicate { _, _ in true }) } throws: {
            ($0 as? HealthStoreError)?.kind == .unsupportedPredicate
        }
    }
}
