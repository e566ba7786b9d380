import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

/// Workout routes: built, saved with their workout, read back in batches, deleted.
@Suite("Workout routes: HKWorkoutRouteBuilder, HKWorkoutRouteQuery and their storage")
struct HKWorkoutRouteQueryTests {
    static let start = Samples.reference

    /// `count` locations one second apart along a meridian, with altitude, accuracies, course and speed.
    static func locations(_ count: Int, from offset: Int = 0) -> [CLLocation] {
        (offset..<(offset + count)).map { (index: Int) -> CLLocation in
            let step = Double(index)
            let coordinate = CLLocationCoordinate2D(latitude: 47.0 + step * 1e-5, longitude: 8.5 - step * 1e-6)
            let altitude: Double = 400 + Double(index % 50)
            let accuracy: Double = 3 + Double(index % 4)
            let speed: Double = 2.5 + Double(index % 7) * 0.1
            return CLLocation(coordinate: coordinate, altitude: altitude, horizontalAccuracy: accuracy, verticalAccuracy: 5,
                              course: Double(index % 360), courseAccuracy: 10, speed: speed, speedAccuracy: 0.5,
                              timestamp: start.addingTimeInterval(step))
        }
    }

    static func workout(seconds: Double = 3_600) -> HKWorkout {
        HKWorkout(activityType: .running, start: start, end: start.addingTimeInterval(seconds))
    }

    /// Runs a route query and returns its batches, checking that only the last is marked done.
    static func batches(_ store: HKHealthStore, _ route: HKWorkoutRoute, interval: DateInterval? = nil) async throws -> [[CLLocation]] {
        let inbox = Inbox<(locations: [CLLocation]?, done: Bool, error: (any Error)?)>()
        let handler: @Sendable (HKWorkoutRouteQuery, [CLLocation]?, Bool, (any Error)?) -> Void = { _, locations, done, error in
            inbox.append((locations, done, error))
        }
        store.execute(interval.map { HKWorkoutRouteQuery(route: route, dateInterval: $0, dataHandler: handler) }
                      ?? HKWorkoutRouteQuery(route: route, dataHandler: handler))
        var received = 0
        while true {
            let values = await inbox.wait(for: received + 1)
            received = values.count
            guard let last = values.last, last.done else { continue }
            if let error = last.error { throw error }
            return values.map { $0.locations ?? [] }
        }
    }

    @Test("A route built from unordered locations is saved with its workout and read back in time order, in batches")
    func buildSaveAndRead() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let workout = Self.workout()
        try await store.save(workout)
        let expected = Self.locations(2_500)
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData(Array(expected[1_000...]))
        try await builder.insertRouteData(Array(expected[..<1_000].reversed()))
        try await builder.addMetadata([HKMetadataKeyIndoorWorkout: false])
        let route = try await builder.finishRoute(with: workout, metadata: ["Lap": 1])
        #expect(route.count == 2_500)
        #expect(route.startDate == expected[0].timestamp)
        #expect(route.endDate == expected[2_499].timestamp)
        #expect(route.sampleType == HKSeriesType.workoutRoute())

        let batches = try await Self.batches(store, route)
        #expect(batches.map(\.count) == [1_024, 1_024, 452])
        #expect(Array(batches.joined()) == expected)

        // The workout's routes, found as HealthKit apps find them.
        let found = try await store.runSampleQuery(HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workout))
        let stored = try #require(found.first as? HKWorkoutRoute)
        #expect(found.count == 1 && stored.uuid == route.uuid && stored.count == 2_500)
        #expect(stored.metadata?["Lap"] as? Int == 1)
        #expect(stored.metadata?[HKMetadataKeyIndoorWorkout] as? Bool == false)
        let other = Self.workout(seconds: 60)
        try await store.save(other)
        #expect(try await store.runSampleQuery(HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: other)).isEmpty)
        // A builder finished once refuses more data.
        await #expect { try await builder.insertRouteData(Self.locations(1)) } throws: { ($0 as? HKError)?.code == .errorInvalidArgument }
        withExtendedLifetime(folder) {}
    }

    @Test("A query with a date interval returns only the locations inside it, bounds included")
    func dateInterval() async throws {
        let store = TestStores.memory()
        let workout = Self.workout()
        try await store.save(workout)
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData(Self.locations(3_000))
        let route = try await builder.finishRoute(with: workout, metadata: nil)
        let interval = DateInterval(start: Self.start.addingTimeInterval(1_500), end: Self.start.addingTimeInterval(2_100))
        let locations = Array(try await Self.batches(store, route, interval: interval).joined())
        #expect(locations == Array(Self.locations(3_000)[1_500...2_100]))
        let before = DateInterval(start: Self.start.addingTimeInterval(-100), end: Self.start.addingTimeInterval(-1))
        #expect(try await Self.batches(store, route, interval: before) == [[]])
    }

    @Test("Deleting a route deletes its location blocks and leaves a tombstone; deleting its workout keeps the route")
    func deletion() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let workout = Self.workout()
        try await store.save(workout)
        let first = try await Self.route(store, workout, count: 1_500)
        let second = try await Self.route(store, workout, count: 10)
        let (added, _, anchor) = try await store.runAnchoredQuery(HKSeriesType.workoutRoute(), anchor: nil)
        #expect(Set(added.map(\.uuid)) == [first.uuid, second.uuid])
        #expect(try Self.blockCount(store) == 3)

        try await store.delete(first)
        let (_, deleted, _) = try await store.runAnchoredQuery(HKSeriesType.workoutRoute(), anchor: anchor)
        #expect(deleted.map(\.uuid) == [first.uuid])
        #expect(try Self.blockCount(store) == 1)
        await #expect { _ = try await Self.batches(store, first) } throws: { ($0 as? HKError)?.code == .errorNoData }

        try await store.delete(workout)
        #expect(try await store.runSampleQuery(HKSeriesType.workoutRoute()).map(\.uuid) == [second.uuid])
        #expect(try await Self.batches(store, second).joined().count == 10)
        withExtendedLifetime(folder) {}
    }

    @Test("Routes need share permission for the route type to save and read permission to read another app's")
    func authorization() async throws {
        let folder = TemporaryFolder()
        let writer = TestStores.app(folder, bundle: "com.example.runner")
        try await writer.requestAuthorization(toShare: [HKObjectType.workoutType()], read: [])
        let workout = Self.workout()
        try await writer.save(workout)
        await #expect { _ = try await Self.route(writer, workout, count: 5) } throws: {
            ($0 as? HKError)?.code == .errorAuthorizationNotDetermined
        }
        try await writer.requestAuthorization(toShare: [HKObjectType.workoutType(), HKSeriesType.workoutRoute()], read: [])
        let route = try await Self.route(writer, workout, count: 5)
        // The writer reads its own route back while it may share the type.
        #expect(try await Self.batches(writer, route).joined().count == 5)

        let stranger = TestStores.app(folder, bundle: "com.example.stranger")
        try await stranger.requestAuthorization(toShare: [HKObjectType.workoutType(), HKSeriesType.workoutRoute()], read: [])
        await #expect { _ = try await Self.batches(stranger, route) } throws: { ($0 as? HKError)?.code == .errorNoData }
        // Nor may it add a route to the writer's workout.
        await #expect { _ = try await Self.route(stranger, workout, count: 5) } throws: {
            ($0 as? HKError)?.code == .errorAuthorizationDenied
        }
        let reader = TestStores.app(folder, bundle: "com.example.map")
        try await reader.requestAuthorization(toShare: [], read: [HKSeriesType.workoutRoute()])
        #expect(try await Self.batches(reader, route).joined().count == 5)
        #expect(try await TestStores.owner(folder).runSampleQuery(HKSeriesType.workoutRoute()).count == 1)
        withExtendedLifetime(folder) {}
    }

    @Test("The builder refuses empty, off-Earth and non-finite locations, unsaved workouts and use after discard")
    func builderValidation() async throws {
        let store = TestStores.memory()
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        let invalid: [[CLLocation]] = [
            [],
            [CLLocation(latitude: 91, longitude: 0)],
            [CLLocation(latitude: 0, longitude: -180.5)],
            [CLLocation(latitude: .nan, longitude: 0)],
            [CLLocation(coordinate: CLLocationCoordinate2D(latitude: 1, longitude: 1), altitude: .infinity, horizontalAccuracy: 1,
                        verticalAccuracy: 1, timestamp: Self.start)],
        ]
        for locations in invalid {
            await #expect { try await builder.insertRouteData(locations) } throws: { ($0 as? HKError)?.code == .errorInvalidArgument }
        }
        // No location yet; then a workout that was never saved: nothing is stored, the builder stays usable.
        await #expect { _ = try await builder.finishRoute(with: Self.workout(), metadata: nil) } throws: {
            ($0 as? HKError)?.code == .errorInvalidArgument
        }
        try await builder.insertRouteData(Self.locations(3))
        await #expect { _ = try await builder.finishRoute(with: Self.workout(), metadata: nil) } throws: {
            ($0 as? HKError)?.code == .errorInvalidArgument
        }
        #expect(try await store.runSampleQuery(HKSeriesType.workoutRoute()).isEmpty)
        let workout = Self.workout()
        try await store.save(workout)
        builder.discard()
        await #expect { _ = try await builder.finishRoute(with: workout, metadata: nil) } throws: {
            ($0 as? HKError)?.code == .errorInvalidArgument
        }
        // A route read back cannot be saved again as a new object.
        let saved = try await Self.route(store, workout, count: 2)
        let readBack = try #require(try await store.runSampleQuery(HKSeriesType.workoutRoute()).first)
        #expect(readBack.uuid == saved.uuid)
        await #expect { try await store.save(readBack) } throws: { ($0 as? HKError)?.code == .errorInvalidArgument }
    }

    @Test("Location blocks are sealed: no coordinate in the file in the clear, and a block moved to another position fails to open")
    func sealing() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let workout = Self.workout()
        try await store.save(workout)
        let route = try await Self.route(store, workout, count: 2_048)
        let file = try Data(contentsOf: folder.database) + ((try? Data(contentsOf: URL(fileURLWithPath: folder.database.path + "-wal"))) ?? Data())
        let latitude = withUnsafeBytes(of: Self.locations(1)[0].coordinate.latitude.bitPattern.littleEndian) { Data($0) }
        #expect(file.range(of: latitude) == nil)
        // Swap the two blocks' sealed bytes.
        try store.engine.database().write { db in
            let blobs = try Data.fetchAll(db, sql: "SELECT sealed FROM route_block ORDER BY position")
            try db.execute(sql: "UPDATE route_block SET sealed = ? WHERE position = 0", arguments: [blobs[1]])
            try db.execute(sql: "UPDATE route_block SET sealed = ? WHERE position = 1", arguments: [blobs[0]])
        }
        await #expect { _ = try await Self.batches(store, route) } throws: {
            ($0 as? HealthStoreError)?.kind == .tamperedRecord
        }
        withExtendedLifetime(folder) {}
    }

    static func route(_ store: HKHealthStore, _ workout: HKWorkout, count: Int) async throws -> HKWorkoutRoute {
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData(locations(count))
        return try await builder.finishRoute(with: workout, metadata: nil)
    }

    static func blockCount(_ store: HKHealthStore) throws -> Int {
        try store.engine.database().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM route_block") ?? -1 }
    }
}
