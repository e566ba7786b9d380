import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

/// The owner's "Recently deleted" list: every delete keeps the sample, sealed, for 30 days;
/// the owner restores it as a new sample.
@Suite("Recently deleted: kept sealed for 30 days, restored as new samples")
struct RecentlyDeletedTests {
    static let watch = HKSourceRevision(source: HKSource(name: "Pat's Watch", bundleIdentifier: "com.example.watch"), version: "10.1",
                                        productType: "Watch7,1", operatingSystemVersion: OperatingSystemVersion(majorVersion: 11,
                                                                                                                minorVersion: 2,
                                                                                                                patchVersion: 0))

    static func owner(_ folder: TemporaryFolder, clock: TestClock) -> HKHealthStore {
        HKHealthStore(configuration: .init(location: .file(folder.database), key: .keyFile(folder.keyFile),
                                           source: HKSource(name: "Owner", bundleIdentifier: "org.example.owner"), role: .owner,
                                           now: clock.reader))
    }

    static func count(_ folder: TemporaryFolder, _ sql: String) async throws -> Int {
        let queue = try DatabaseQueue(path: folder.database.path)
        defer { try? queue.close() }
        return try await queue.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    /// Every byte of the database and its WAL.
    static func fileBytes(_ folder: TemporaryFolder) -> Data {
        var data = Data()
        for suffix in ["", "-wal", "-shm"] { data += FileManager.default.contents(atPath: folder.database.path + suffix) ?? Data() }
        return data
    }

    static let device = HKDevice(name: "Wrist", manufacturer: "Example", model: "W7", hardwareVersion: nil, firmwareVersion: nil,
                                 softwareVersion: "11.2", localIdentifier: nil, udiDeviceIdentifier: nil)

    static func heartRate() -> HKQuantitySample {
        let start = Samples.reference
        return HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: Samples.bpm, doubleValue: 73.25),
                                start: start, end: start.addingTimeInterval(30), device: device,
                                metadata: ["Note": "after the stairs", HKMetadataKeyWasUserEntered: true])
    }

    @Test("Delete, list, restore: a new UUID with the same value, dates, source, device and metadata; anchored queries see both")
    func roundTrip() async throws {
        let folder = TemporaryFolder()
        let clock = TestClock()
        let store = Self.owner(folder, clock: clock)
        let original = Self.heartRate()
        try await store.save([original], recordedAs: [Self.watch])
        let type = HKQuantityType(.heartRate)
        let (_, _, anchor) = try await store.runAnchoredQuery(type, anchor: nil)
        #expect(try await store.recentlyDeletedItems().isEmpty)

        clock.advance(by: 120)
        try await store.delete(original)
        #expect(try await store.runSampleQuery(type).isEmpty)
        let (_, deleted, afterDelete) = try await store.runAnchoredQuery(type, anchor: anchor)
        #expect(deleted.map(\.uuid) == [original.uuid])

        let items = try await store.recentlyDeletedItems()
        let item = try #require(items.first)
        #expect(items.count == 1)
        #expect(item.deletedAt == clock.now)
        #expect(item.expiresAt == clock.now.addingTimeInterval(30 * 86_400))
        let listed = try #require(item.sample as? HKQuantitySample)
        #expect(listed.uuid == original.uuid)
        #expect(listed.quantity.doubleValue(for: Samples.bpm) == 73.25)
        #expect(listed.startDate == original.startDate && listed.endDate == original.endDate)
        #expect(listed.sourceRevision.source.bundleIdentifier == "com.example.watch")

        let restoredUUIDs = try await store.restoreRecentlyDeleted([item.id])
        #expect(try await store.recentlyDeletedItems().isEmpty)
        let samples = try await store.runSampleQuery(type)
        let restored = try #require(samples.first as? HKQuantitySample)
        #expect(samples.count == 1)
        #expect(restoredUUIDs == [restored.uuid])
        #expect(restored.uuid != original.uuid)
        #expect(restored.quantity.doubleValue(for: Samples.bpm) == 73.25)
        #expect(restored.startDate == original.startDate && restored.endDate == original.endDate)
        #expect(restored.sourceRevision.source == Self.watch.source)
        #expect(restored.sourceRevision.version == "10.1" && restored.sourceRevision.productType == "Watch7,1")
        #expect(restored.sourceRevision.operatingSystemVersion.minorVersion == 2)
        #expect(restored.device?.name == "Wrist" && restored.device?.model == "W7")
        #expect(restored.metadata?["Note"] as? String == "after the stairs")
        #expect(restored.metadata?[HKMetadataKeyWasUserEntered] as? Bool == true)

        let (added, deletedAgain, _) = try await store.runAnchoredQuery(type, anchor: afterDelete)
        #expect(added.map(\.uuid) == [restored.uuid] && deletedAgain.isEmpty)
        // Restoring the same item twice is refused: it has left the list.
        await #expect { try await store.restoreRecentlyDeleted([item.id]) } throws: { ($0 as? HKError)?.code == .errorInvalidArgument }
        #expect(try await store.runSampleQuery(type).count == 1)
    }

    @Test("Deletes by predicate and by UUID keep every sample; a correlation comes back with its members")
    func correlationAndPredicate() async throws {
        let folder = TemporaryFolder()
        let store = Self.owner(folder, clock: TestClock())
        let start = Samples.reference
        let systolic = HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic), quantity: HKQuantity(unit: .millimeterOfMercury(),
                                                                                                           doubleValue: 121),
                                        start: start, end: start)
        let diastolic = HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic), quantity: HKQuantity(unit: .millimeterOfMercury(),
                                                                                                             doubleValue: 79),
                                         start: start, end: start)
        let pressure = HKCorrelation(type: HKCorrelationType(.bloodPressure), start: start, end: start, objects: [systolic, diastolic],
                                     metadata: ["Arm": "left"])
        let steps = (0..<3).map { Samples.steps(Double(100 + $0), at: Double($0) * 3_600) }
        try await store.save([pressure] + steps)

        #expect(try await store.deleteObjects(of: HKQuantityType(.stepCount), predicate: HKQuery.predicateForSamples(withStart: nil, end: nil)) == 3)
        #expect(try await store.deleteObjects(withUUIDs: [pressure.uuid]) == 1)
        let items = try await store.recentlyDeletedItems()
        #expect(items.count == 4)
        let listedPressure = try #require(items.first { $0.sample is HKCorrelation }?.sample as? HKCorrelation)
        #expect(listedPressure.objects.count == 2)

        try await store.restoreRecentlyDeleted(items.map(\.id))
        #expect(try await store.recentlyDeletedItems().isEmpty)
        let restoredSteps = try await store.runSampleQuery(HKQuantityType(.stepCount)).compactMap { $0 as? HKQuantitySample }
        #expect(restoredSteps.map { $0.quantity.doubleValue(for: .count()) }.sorted() == [100, 101, 102])
        #expect(Set(restoredSteps.map(\.uuid)).isDisjoint(with: steps.map(\.uuid)))
        let correlations = try await store.runSampleQuery(HKCorrelationType(.bloodPressure))
        let restored = try #require(correlations.first as? HKCorrelation)
        #expect(correlations.count == 1 && restored.uuid != pressure.uuid)
        #expect(restored.metadata?["Arm"] as? String == "left")
        let values = restored.objects.compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .millimeterOfMercury()) }
        #expect(values.sorted() == [79, 121])
        #expect(Set(restored.objects.map(\.uuid)).isDisjoint(with: [systolic.uuid, diastolic.uuid]))
        #expect(try await Self.count(folder, "SELECT count(*) FROM recently_deleted") == 0)
    }

    @Test("A workout and its route deleted together come back linked, with every location")
    func workoutWithRoute() async throws {
        let folder = TemporaryFolder()
        let store = Self.owner(folder, clock: TestClock())
        let workout = HKWorkoutRouteQueryTests.workout()
        try await store.save(workout)
        let locations = HKWorkoutRouteQueryTests.locations(1_500)
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData(locations)
        let route = try await builder.finishRoute(with: workout, metadata: ["Lap": 3])
        #expect(try await store.deleteObjects(withUUIDs: [workout.uuid, route.uuid]) == 2)
        #expect(try await store.runSampleQuery(HKSeriesType.workoutRoute()).isEmpty)

        let items = try await store.recentlyDeletedItems()
        // The route alone first: it is linked when its workout comes back.
        let routeItem = try #require(items.first { $0.sample is HKWorkoutRoute })
        let workoutItem = try #require(items.first { $0.sample is HKWorkout })
        try await store.restoreRecentlyDeleted([routeItem.id, workoutItem.id])
        let newWorkout = try #require(try await store.runSampleQuery(HKWorkoutType.workoutType()).first as? HKWorkout)
        #expect(newWorkout.uuid != workout.uuid && newWorkout.workoutActivityType == .running)
        #expect(newWorkout.startDate == workout.startDate && newWorkout.endDate == workout.endDate)
        let routes = try await store.runSampleQuery(HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: newWorkout))
        let newRoute = try #require(routes.first as? HKWorkoutRoute)
        #expect(routes.count == 1 && newRoute.uuid != route.uuid && newRoute.count == 1_500)
        #expect(newRoute.metadata?["Lap"] as? Int == 3)
        #expect(Array(try await HKWorkoutRouteQueryTests.batches(store, newRoute).joined()) == locations)
    }

    @Test("Items older than 30 days are purged when the store opens and on delete")
    func purge() async throws {
        let folder = TemporaryFolder()
        let clock = TestClock()
        let store = Self.owner(folder, clock: clock)
        try await store.save([Samples.steps(1, at: 0), Samples.steps(2, at: 600)])
        let all = try await store.runSampleQuery(HKQuantityType(.stepCount))
        try await store.delete(all[0])
        clock.advance(by: 29 * 86_400)
        #expect(try await Self.owner(folder, clock: clock).recentlyDeletedItems().count == 1)
        clock.advance(by: 2 * 86_400)
        // Past 30 days: not listed, not restorable, and gone from the file once the store opens.
        #expect(try await store.recentlyDeletedItems().isEmpty)
        #expect(try await Self.count(folder, "SELECT count(*) FROM recently_deleted") == 1)
        try Self.owner(folder, clock: clock).open()
        #expect(try await Self.count(folder, "SELECT count(*) FROM recently_deleted") == 0)

        // On delete: the second sample's deletion is kept; a month later another delete purges it.
        try await store.delete(all[1])
        #expect(try await Self.count(folder, "SELECT count(*) FROM recently_deleted") == 1)
        clock.advance(by: 31 * 86_400)
        try await store.save(Samples.steps(3, at: 1_200))
        let third = try await store.runSampleQuery(HKQuantityType(.stepCount))
        try await store.delete(third)
        #expect(try await Self.count(folder, "SELECT count(*) FROM recently_deleted") == 1)
        #expect(try await store.recentlyDeletedItems().map { ($0.sample as? HKQuantitySample)?.quantity.doubleValue(for: .count()) } == [3])
    }

    @Test("The list is sealed: a deleted sample's value, metadata and device are not in the file in the clear")
    func sealed() async throws {
        let folder = TemporaryFolder()
        let store = Self.owner(folder, clock: TestClock())
        let value = 8_765.432_1
        let sample = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: value),
                                      start: Samples.reference, end: Samples.reference.addingTimeInterval(60),
                                      device: HKDevice(name: "DELETED-DEVICE-41c2", manufacturer: nil, model: nil, hardwareVersion: nil,
                                                       firmwareVersion: nil, softwareVersion: nil, localIdentifier: nil,
                                                       udiDeviceIdentifier: nil),
                                      metadata: ["note": "DELETED-NOTE-9e1b"])
        try await store.save(sample)
        try await store.delete(sample)
        #expect(try await Self.count(folder, "SELECT count(*) FROM recently_deleted") == 1)
        #expect(try await store.recentlyDeletedItems().count == 1)
        let bytes = Self.fileBytes(folder)
        for needle in ["DELETED-NOTE-9e1b", "DELETED-DEVICE-41c2"] {
            #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) is stored in the clear")
        }
        withUnsafeBytes(of: value.bitPattern.littleEndian) { #expect(bytes.range(of: Data($0)) == nil) }
        withUnsafeBytes(of: value.bitPattern.bigEndian) { #expect(bytes.range(of: Data($0)) == nil) }
    }

    @Test("Apps never see the list; what an app deletes is in the owner's list")
    func appsDoNotSee() async throws {
        let folder = TemporaryFolder()
        let owner = Self.owner(folder, clock: TestClock())
        try owner.open()
        let app = TestStores.app(folder, bundle: "com.example.app")
        try await app.requestAuthorization(toShare: [HKQuantityType(.stepCount)], read: [HKQuantityType(.stepCount)])
        let sample = Samples.steps(55, at: 0)
        try await app.save(sample)
        try await app.delete(sample)
        await #expect { _ = try await app.recentlyDeletedItems() } throws: { ($0 as? HKError)?.code == .errorAuthorizationDenied }
        await #expect { try await app.restoreRecentlyDeleted([1]) } throws: { ($0 as? HKError)?.code == .errorAuthorizationDenied }
        let items = try await owner.recentlyDeletedItems()
        #expect(items.map(\.sample.uuid) == [sample.uuid])
        #expect(items.first?.sample.sourceRevision.source.bundleIdentifier == "com.example.app")
    }

    @Test("A store from v7 upgrades to v8 with its samples, and its deletes are then kept")
    func upgradeFromV7() async throws {
        let source = TemporaryFolder()
        let old = [Samples.steps(4_321, at: 0), Samples.heartRate(64, at: 60)]
        try await TestStores.owner(source).save(old)
        let folder = TemporaryFolder()
        try FileManager.default.copyItem(at: source.keyFile, to: folder.keyFile)
        let queue = try DatabaseQueue(path: folder.database.path)
        try HealthDatabase.migrator.migrate(queue, upTo: "v7-record-connections")
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS legacy", arguments: [source.database.path])
            try db.inTransaction {
                try db.execute(sql: """
                    DELETE FROM store_info;
                    INSERT INTO store_info SELECT * FROM legacy.store_info;
                    INSERT INTO source SELECT * FROM legacy.source;
                    INSERT INTO value_block SELECT * FROM legacy.value_block;
                    INSERT INTO sample (id, uuid, type, kind, start, "end", source_id, parent_id, activity_type, anchor, sync_id,
                                        sync_version, sealed, block_id, block_index)
                      SELECT id, uuid, (SELECT identifier FROM legacy.sample_type t WHERE t.id = type), kind, start, "end", source_id,
                             parent_id, activity_type, anchor, sync_id, sync_version, sealed, block_id, block_index FROM legacy.sample;
                    INSERT INTO rollup_page SELECT * FROM legacy.rollup_page;
                    """)
                return .commit
            }
            try db.execute(sql: "DETACH DATABASE legacy")
        }
        try queue.close()
        #expect(try await Self.count(folder, "SELECT count(*) FROM sqlite_master WHERE name = 'recently_deleted'") == 0)

        let store = TestStores.owner(folder)
        let steps = try await store.runSampleQuery(HKQuantityType(.stepCount))
        #expect(steps.map(\.uuid) == [old[0].uuid])
        #expect((steps.first as? HKQuantitySample)?.quantity.doubleValue(for: .count()) == 4_321)
        #expect(try await store.runSampleQuery(HKQuantityType(.heartRate)).map(\.uuid) == [old[1].uuid])
        #expect(try await Self.count(folder, "SELECT count(*) FROM grdb_migrations WHERE identifier = 'v8-recently-deleted'") == 1)
        try await store.delete(steps)
        let items = try await store.recentlyDeletedItems()
        #expect(items.map(\.sample.uuid) == [old[0].uuid])
        try await store.restoreRecentlyDeleted(items.map(\.id))
        #expect(try await store.runSampleQuery(HKQuantityType(.stepCount)).compactMap {
            ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .count())
        } == [4_321])
    }
}
