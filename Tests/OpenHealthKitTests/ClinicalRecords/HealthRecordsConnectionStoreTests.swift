import Foundation
@testable import OpenHealthKit
import Testing
import TestSupport

@Suite("Health-records connections: sealed, owner-only, saved with their batch or not at all")
struct HealthRecordsConnectionStoreTests {
    let day = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("Save, replace, list by name, remove")
    func roundTrip() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        #expect(try await owner.healthRecordsConnections().isEmpty)
        try await owner.saveHealthRecordsConnection(HKHealthRecordsConnection(name: "clinic", state: Data("one".utf8)))
        try await owner.saveHealthRecordsConnection(HKHealthRecordsConnection(name: "another clinic ✓", state: Data()))
        try await owner.saveHealthRecordsConnection(HKHealthRecordsConnection(name: "clinic", state: Data("two".utf8)))
        #expect(try await owner.healthRecordsConnections() == [HKHealthRecordsConnection(name: "another clinic ✓", state: Data()),
                                                               HKHealthRecordsConnection(name: "clinic", state: Data("two".utf8))])
        #expect(try await owner.healthRecordsConnection(named: "clinic")?.state == Data("two".utf8))
        #expect(try await owner.removeHealthRecordsConnection(named: "clinic"))
        #expect(try await !owner.removeHealthRecordsConnection(named: "clinic"))
        #expect(try await owner.healthRecordsConnections().map(\.name) == ["another clinic ✓"])
        // Reopened with the key: still there.
        #expect(try await TestStores.owner(folder).healthRecordsConnections().map(\.name) == ["another clinic ✓"])
    }

    @Test("Nothing of a connection is in the database file in the clear, and a moved row fails to open")
    func sealed() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        try await owner.saveHealthRecordsConnection(HKHealthRecordsConnection(name: "secret-clinic-4471", state: Data("token-99812".utf8)))
        try await owner.saveHealthRecordsConnection(HKHealthRecordsConnection(name: "other", state: Data("x".utf8)))
        var text = Data()
        for suffix in ["", "-wal"] {
            text.append((try? Data(contentsOf: URL(fileURLWithPath: folder.database.path + suffix))) ?? Data())
        }
        for secret in ["secret-clinic-4471", "token-99812"] {
            #expect(text.range(of: Data(secret.utf8)) == nil, "\(secret) is stored in the clear")
        }
        // Swap the two sealed rows: each is bound to its name's hash, so neither opens.
        let database = try await owner.engine.databaseAsync()
        try await database.writeAsync { db in
            try db.execute(sql: """
                UPDATE record_connection SET sealed = (SELECT sealed FROM record_connection r2 WHERE r2.name_hash <> record_connection.name_hash)
                """)
        }
        await #expect(throws: HealthStoreError.self) { _ = try await owner.healthRecordsConnections() }
    }

    @Test("An app can neither read nor write connections")
    func ownerOnly() async throws {
        let folder = TemporaryFolder()
        try await TestStores.owner(folder).saveHealthRecordsConnection(HKHealthRecordsConnection(name: "clinic", state: Data()))
        let app = TestStores.app(folder, bundle: "com.example.reader")
        await #expect(throws: HKError.self) { _ = try await app.healthRecordsConnections() }
        await #expect(throws: HKError.self) { try await app.saveHealthRecordsConnection(HKHealthRecordsConnection(name: "x", state: Data())) }
        await #expect(throws: HKError.self) { try await app.removeHealthRecordsConnection(named: "clinic") }
        await #expect(throws: HKError.self) {
            try await app.saveHealthRecords([HealthRecordFixtures.labResult(id: "a", at: day)], source: HealthRecordFixtures.provider,
                                            connection: HKHealthRecordsConnection(name: "clinic", state: Data()))
        }
    }

    @Test("Records and the connection's state are committed together, or neither")
    func atomicWithTheBatch() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let labType = HKClinicalType(.labResultRecord)
        try await owner.saveHealthRecordsConnection(HKHealthRecordsConnection(name: "clinic", state: Data("mark 0".utf8)))
        try await owner.saveHealthRecords([HealthRecordFixtures.labResult(id: "a", at: day)], source: HealthRecordFixtures.provider,
                                          connection: HKHealthRecordsConnection(name: "clinic", state: Data("mark 1".utf8)))
        #expect(try await owner.healthRecordsConnection(named: "clinic")?.state == Data("mark 1".utf8))
        #expect(try await owner.runSampleQuery(labType).count == 1)

        // A batch the store refuses (a quantity sample among the records) stores neither.
        let stray = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 1), start: day, end: day)
        await #expect(throws: HKError.self) {
            try await owner.saveHealthRecords([HealthRecordFixtures.labResult(id: "b", at: day), stray], source: HealthRecordFixtures.provider,
                                              connection: HKHealthRecordsConnection(name: "clinic", state: Data("mark 2".utf8)))
        }
        #expect(try await owner.healthRecordsConnection(named: "clinic")?.state == Data("mark 1".utf8))
        #expect(try await owner.runSampleQuery(labType).count == 1)

        // A failure inside the transaction (the connection row cannot be written) rolls the records back too.
        let database = try await owner.engine.databaseAsync()
        try await database.writeAsync { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON record_connection BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        await #expect(throws: (any Error).self) {
            try await owner.saveHealthRecords([HealthRecordFixtures.labResult(id: "c", at: day)], source: HealthRecordFixtures.provider,
                                              connection: HKHealthRecordsConnection(name: "clinic", state: Data("mark 3".utf8)))
        }
        #expect(try await owner.runSampleQuery(labType).count == 1)
        #expect(try await owner.healthRecordsConnection(named: "clinic")?.state == Data("mark 1".utf8))
    }

    @Test("Verifiable records deleted with a batch: by UUID, only verifiable ones, committed with it or not at all")
    func deletingVerifiableRecords() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let cardType = HKVerifiableClinicalRecordType.verifiableClinicalRecordType()
        let labType = HKClinicalType(.labResultRecord)
        let F = HealthRecordFixtures.self
        let old = F.card("h.old.s", types: [F.immunization], relevant: day), kept = F.card("h.kept.s", types: [F.laboratory], relevant: day)
        let lab = F.labResult(id: "a", at: day)
        try await owner.saveHealthRecords([old, kept, lab], source: F.provider)
        let start = try await owner.runAnchoredQuery(cardType, anchor: nil)
        #expect(Set(start.added.map(\.uuid)) == [old.uuid, kept.uuid])

        // The new card stored, the old one deleted (a clinical record's UUID and an unknown one are skipped).
        let new = F.card("h.new.s", types: [F.immunization], relevant: day)
        try await owner.saveHealthRecords([new], source: F.provider, deletingVerifiableRecords: [old.uuid, lab.uuid, UUID()],
                                          connection: HKHealthRecordsConnection(name: "clinic", state: Data("mark 1".utf8)))
        let changes = try await owner.runAnchoredQuery(cardType, anchor: start.anchor)
        #expect(changes.added.map(\.uuid) == [new.uuid] && changes.deleted.map(\.uuid) == [old.uuid])
        #expect(try await owner.runSampleQuery(labType).map(\.uuid) == [lab.uuid])
        #expect(try await owner.healthRecordsConnection(named: "clinic")?.state == Data("mark 1".utf8))

        // A failure inside the transaction (the connection row cannot be written) keeps the card.
        let database = try await owner.engine.databaseAsync()
        try await database.writeAsync { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON record_connection BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        await #expect(throws: (any Error).self) {
            try await owner.saveHealthRecords([], source: F.provider, deletingVerifiableRecords: [kept.uuid],
                                              connection: HKHealthRecordsConnection(name: "clinic", state: Data("mark 2".utf8)))
        }
        #expect(Set(try await owner.runAnchoredQuery(cardType, anchor: nil).added.map(\.uuid)) == [kept.uuid, new.uuid])
        try await database.writeAsync { db in try db.execute(sql: "DROP TRIGGER refuse") }

        // Deleting alone, with the connection's state.
        try await owner.saveHealthRecords([], source: F.provider, deletingVerifiableRecords: [kept.uuid],
                                          connection: HKHealthRecordsConnection(name: "clinic", state: Data("mark 3".utf8)))
        #expect(try await owner.runAnchoredQuery(cardType, anchor: nil).added.map(\.uuid) == [new.uuid])
        #expect(try await owner.healthRecordsConnection(named: "clinic")?.state == Data("mark 3".utf8))
    }
}
