import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

/// v19-devices: each distinct device is sealed once in the `device` table and a sample's sealed
/// record refers to it by its keyed hash: every sample reads back with the very device it was
/// saved with, equal devices share one row, records shrink by the device's JSON, and a store
/// written the old way (devices embedded) reads the same after the migration.
@Suite("Devices stored once: round trips, one row per device, smaller records, old stores")
struct DeviceTableTests {
    static let devices: [HKDevice?] = [
        nil,
        HKDevice(name: "Watch", manufacturer: nil, model: nil, hardwareVersion: nil, firmwareVersion: nil, softwareVersion: nil,
                 localIdentifier: nil, udiDeviceIdentifier: nil),
        HKDevice(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,2", firmwareVersion: "1.2",
                 softwareVersion: "10.1", localIdentifier: "local-1", udiDeviceIdentifier: "(01)00888888888888"),
        HKDevice(name: "Waage Küche ⚖️", manufacturer: "Withings «日本»", model: "Body+ \u{1F3CB}", hardwareVersion: "",
                 firmwareVersion: nil, softwareVersion: "é\u{301}", localIdentifier: "\"quoted\"\n\\", udiDeviceIdentifier: nil),
    ]

    /// A copy of `device` that is another object (so no cache keyed by identity answers for it).
    static func copy(_ device: HKDevice?) -> HKDevice? {
        device.map {
            HKDevice(name: $0.name, manufacturer: $0.manufacturer, model: $0.model, hardwareVersion: $0.hardwareVersion,
                     firmwareVersion: $0.firmwareVersion, softwareVersion: $0.softwareVersion, localIdentifier: $0.localIdentifier,
                     udiDeviceIdentifier: $0.udiDeviceIdentifier)
        }
    }

    /// Every property, so a device that reads back differently in any field is told apart.
    static func fields(_ device: HKDevice?) -> [String?]? {
        device.map {
            [$0.name, $0.manufacturer, $0.model, $0.hardwareVersion, $0.firmwareVersion, $0.softwareVersion, $0.localIdentifier,
             $0.udiDeviceIdentifier]
        }
    }

    /// Heart rates and sleep samples, three of each device (each sample its own device object).
    static func samples() -> [HKSample] {
        var samples: [HKSample] = []
        for (index, device) in devices.enumerated() {
            for copyIndex in 0..<3 {
                let start = Samples.reference.addingTimeInterval(Double(index * 10 + copyIndex) * 600)
                samples.append(HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: Samples.bpm, doubleValue: 60),
                                                start: start, end: start, device: copy(device), metadata: ["i": index * 10 + copyIndex]))
                samples.append(HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: HKCategoryValueSleepAnalysis.asleepCore.rawValue,
                                                start: start, end: start.addingTimeInterval(60), device: copy(device)))
            }
        }
        return samples
    }

    static func readAll(_ store: HKHealthStore) async throws -> [UUID: HKSample] {
        var read: [UUID: HKSample] = [:]
        for type in [HKQuantityType(.heartRate), HKCategoryType(.sleepAnalysis)] as [HKSampleType] {
            for sample in try await store.runSampleQuery(type) { read[sample.uuid] = sample }
        }
        return read
    }

    /// Every sample of `saved` reads back with the same device, field for field.
    static func expectSameDevices(_ store: HKHealthStore, _ saved: [HKSample]) async throws {
        let read = try await readAll(store)
        #expect(read.count == saved.count)
        for sample in saved {
            let stored = try #require(read[sample.uuid])
            #expect(fields(stored.device) == fields(sample.device), "\(sample.uuid)")
            #expect(stored.device == sample.device)
        }
    }

    static func expectDeviceRows(_ folder: TemporaryFolder, _ expected: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let rows = try await ValueBlockTests.integer(folder, "SELECT count(*) FROM device")
        #expect(rows == expected, sourceLocation: sourceLocation)
    }

    @Test("Samples with no, partial, full and Unicode devices read back with the same device; each distinct device is one row")
    func roundTrip() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let saved = Self.samples()
        try await store.save(saved)
        try await Self.expectSameDevices(store, saved)
        try await Self.expectDeviceRows(folder, 3)

        // A device predicate finds the samples of that device.
        let full = try #require(Self.devices[2])
        let found = try await store.runSampleQuery(HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: [full]))
        #expect(found.count == 3 && found.allSatisfy { Self.fields($0.device) == Self.fields(full) })

        // An anchored query returns the same devices.
        let anchored = try await store.runAnchoredQuery(HKCategoryType(.sleepAnalysis), anchor: nil)
        let byUUID = Dictionary(uniqueKeysWithValues: saved.map { ($0.uuid, $0) })
        #expect(anchored.added.count == 12)
        for sample in anchored.added { #expect(Self.fields(sample.device) == Self.fields(byUUID[sample.uuid]?.device)) }

        // A new store object (a later process) reads the same.
        try await Self.expectSameDevices(TestStores.owner(folder), saved)
    }

    @Test("Many samples of one device store one device row, and records shrink by the device's JSON each")
    func oneRowForManyRecords() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let device = try #require(Self.devices[2])
        let count = 300
        let saved = (0..<count).map { index in
            let start = Samples.reference.addingTimeInterval(Double(index) * 60)
            return HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: Samples.bpm, doubleValue: 60 + Double(index % 40)),
                                    start: start, end: start, device: Self.copy(device))
        }
        // Two saves: the second finds the row the first stored.
        try await store.save(Array(saved[0..<100]))
        try await store.save(Array(saved[100...]))
        try await Self.expectDeviceRows(folder, 1)
        try await Self.expectSameDevices(store, saved)

        let json = try JSONEncoder().encode(device)
        let records = try await ValueBlockTests.integer(folder, "SELECT sum(length(sealed)) FROM sample")
        let deviceRow = try await ValueBlockTests.integer(folder, "SELECT sum(length(hash) + length(sealed)) FROM device")
        // The same samples written the old way: each record embeds the JSON with its 4-byte length instead of a 16-byte reference.
        try await Self.embedDevices(folder)
        let embedded = try await ValueBlockTests.integer(folder, "SELECT sum(length(sealed)) FROM sample")
        #expect(embedded - records == count * (4 + json.count - SamplePayload.deviceReferenceCount))
        #expect(records + deviceRow < embedded - count * 100, "\(records) + \(deviceRow) vs \(embedded)")
        // Opened again (v19 runs again on the table-less store): the embedded devices read the same.
        try await Self.expectSameDevices(TestStores.owner(folder), saved)
    }

    /// Rewrites every record as a save before v19 wrote it (the device's JSON embedded), drops
    /// the `device` table and forgets the migration.
    static func embedDevices(_ folder: TemporaryFolder) async throws {
        let database = try HealthDatabase.open(location: .file(folder.database), key: .keyFile(folder.keyFile), tombstoneRetention: 86_400)
        let cipher = database.cipher
        try await database.writer.write { db in
            for row in try Row.fetchAll(db, sql: """
                SELECT id, uuid, (SELECT identifier FROM sample_type t WHERE t.id = type), kind, start, "end", sealed FROM sample
                """) {
                guard let kind = SampleKind(rawValue: row[3]) else { throw HealthStoreError(.corruptDatabase, "kind") }
                let context = RecordContext(uuid: row[1] as Data, type: row[2], kind: kind, start: row[4], end: row[5])
                var payload = try SamplePayload(decoding: cipher.open(row[6] as Data, context: context.bytes))
                guard let reference = payload.deviceReference else { continue }
                payload.device = try HealthDatabase.deviceJSON(db, reference: reference, cipher: cipher)
                payload.deviceReference = nil
                try db.execute(sql: "UPDATE sample SET sealed = ? WHERE id = ?",
                               arguments: [try cipher.seal(payload.encodedBytes(), context: context.bytes), row[0] as Int64])
            }
            try db.execute(sql: "DROP TABLE device")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v19-devices'")
        }
        try (database.writer as? DatabasePool)?.close()
    }

    @Test("A store written the old way migrates: old records keep their embedded devices and read the same; new ones refer to rows")
    func oldStoreMigrates() async throws {
        let folder = TemporaryFolder()
        let saved = Self.samples()
        try await TestStores.owner(folder).save(saved)
        try await Self.embedDevices(folder)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM sqlite_master WHERE name = 'device'") == 0)

        let store = TestStores.owner(folder)
        try await Self.expectSameDevices(store, saved)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM grdb_migrations WHERE identifier = 'v19-devices'") == 1)
        // Old records are not rewritten: the table starts empty.
        try await Self.expectDeviceRows(folder, 0)

        // New samples of the same devices refer to rows; old and new read the same.
        let later = Self.samples()
        try await store.save(later)
        try await Self.expectDeviceRows(folder, 3)
        try await Self.expectSameDevices(store, saved + later)
    }

    @Test("Deleting a sample keeps the device another sample (and Recently deleted) uses; a restore brings it back with its device")
    func deletionKeepsSharedDevices() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let saved = Self.samples()
        try await store.save(saved)
        // Every sample of the full device but one.
        let full = Self.fields(Self.devices[2])
        let ofFull = saved.filter { Self.fields($0.device) == full }
        try await store.delete(Array(ofFull.dropLast()))
        try await Self.expectDeviceRows(folder, 3)
        try await Self.expectSameDevices(store, saved.filter { sample in !ofFull.dropLast().contains { $0.uuid == sample.uuid } })

        // The last one too: its row stays (unreferenced rows are kept), and Recently deleted still shows the device.
        try await store.delete(try #require(ofFull.last))
        try await Self.expectDeviceRows(folder, 3)
        let items = try await store.recentlyDeletedItems()
        #expect(items.count == ofFull.count)
        #expect(items.allSatisfy { Self.fields($0.sample.device) == full })

        let restored = try await store.restoreRecentlyDeleted(items.map(\.id))
        #expect(restored.count == ofFull.count)
        let read = try await Self.readAll(store)
        for uuid in restored { #expect(Self.fields(read[uuid]?.device) == full) }
        try await Self.expectDeviceRows(folder, 3)
    }

    @Test("A record's device reference survives its layout's encoding, beside metadata and extra sections")
    func payloadLayout() throws {
        let reference = Data((0..<16).map { UInt8($0 * 7) })
        var payload = SamplePayload(double: 61.5, metadata: Data("{\"a\":1}".utf8), device: Data("{}".utf8), extra: Data([1, 2, 3]))
        payload.deviceReference = reference
        let decoded = try SamplePayload(decoding: payload.encoded())
        #expect(decoded.deviceReference == reference)
        #expect(decoded.device == nil)
        #expect(decoded.metadata == payload.metadata && decoded.extra == payload.extra && decoded.doubleValue == 61.5)
        // A truncated reference is an error, not a shorter device.
        let bytes = payload.encoded()
        #expect(throws: HealthStoreError.self) { try SamplePayload(decoding: bytes.prefix(10 + 4 + 7 + 10)) }
        // Without a reference the device stays embedded, as before.
        payload.deviceReference = nil
        let embedded = try SamplePayload(decoding: payload.encoded())
        #expect(embedded.device == Data("{}".utf8) && embedded.deviceReference == nil && embedded.extra == Data([1, 2, 3]))
    }
}
