import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

/// Cases found in review of the store: each would have been wrong before its fix.
@Suite("Store edge cases")
struct ReviewRegressionTests {
    static let systolic = HKQuantityType(.bloodPressureSystolic)
    static let diastolic = HKQuantityType(.bloodPressureDiastolic)

    private func pressure(_ high: Double, _ low: Double, at offset: TimeInterval = 0) -> HKCorrelation {
        let date = Samples.reference.addingTimeInterval(offset)
        return HKCorrelation(type: HKCorrelationType(.bloodPressure), start: date, end: date, objects: [
            HKQuantitySample(type: Self.systolic, quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: high), start: date, end: date),
            HKQuantitySample(type: Self.diastolic, quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: low), start: date, end: date),
        ])
    }

    @Test("Correlations are authorized through their members: one denied member hides the correlation")
    func correlationAuthorization() async throws {
        let folder = TemporaryFolder()
        let cuff = TestStores.app(folder, bundle: "com.example.cuff")
        try await cuff.requestAuthorization(toShare: [Self.systolic, Self.diastolic], read: [])
        try await cuff.save(pressure(120, 80))
        // Correlation types cannot be requested.
        await #expect { try await cuff.requestAuthorization(toShare: [HKCorrelationType(.bloodPressure)], read: []) } throws: {
            ($0 as? HKError)?.code == .errorInvalidArgument
        }
        // The cuff may share both members: it reads its own correlation back.
        #expect(try await cuff.runSampleQuery(HKCorrelationType(.bloodPressure)).count == 1)

        let partial = TestStores.app(folder, bundle: "com.example.partial",
                                     provider: PolicyFileAuthorizationProvider(policy: .init(apps: [
                                         "com.example.partial": .init(share: [], read: [Self.systolic.identifier])])))
        try await partial.requestAuthorization(toShare: [], read: [Self.systolic, Self.diastolic])
        #expect(try await partial.runSampleQuery(HKCorrelationType(.bloodPressure)).isEmpty)
        #expect(try await partial.runSampleQuery(Self.systolic).count == 1)
        #expect(try await partial.runSampleQuery(Self.diastolic).isEmpty)

        let full = TestStores.app(folder, bundle: "com.example.full")
        try await full.requestAuthorization(toShare: [], read: [Self.systolic, Self.diastolic])
        let seen = try await full.runSampleQuery(HKCorrelationType(.bloodPressure))
        #expect(seen.count == 1 && (seen.first as? HKCorrelation)?.objects.count == 2)

        // Deleting a correlation checks the members' share permission, not the correlation type's.
        let own = try #require(try await cuff.runSampleQuery(HKCorrelationType(.bloodPressure)).first)
        try await cuff.delete(own)
        #expect(try await full.runSampleQuery(HKCorrelationType(.bloodPressure)).isEmpty)
        #expect(try await full.runSampleQuery(Self.systolic).isEmpty)
        withExtendedLifetime(folder) {}
    }

    @Test("Observers of a correlation type fire for an app authorized through the members")
    func correlationObserver() async throws {
        let folder = TemporaryFolder()
        let app = TestStores.app(folder, bundle: "com.example.cuff")
        try await app.requestAuthorization(toShare: [Self.systolic, Self.diastolic], read: [Self.systolic, Self.diastolic])
        let fired = Inbox<Int>()
        let query = HKObserverQuery(sampleType: HKCorrelationType(.bloodPressure), predicate: nil) { _, completion, _ in
            fired.append(1)
            completion()
        }
        app.execute(query)
        #expect(await fired.wait(for: 1).count == 1)
        try await app.save(pressure(118, 79))
        #expect(await fired.wait(for: 2).count == 2)
        app.stop(query)
        withExtendedLifetime(folder) {}
    }

    @Test("The legacy no-anchor value means from the beginning; overlapping descriptors do not repeat changes")
    func anchors() async throws {
        let store = TestStores.memory()
        let samples = (0..<3).map { Samples.steps(Double($0), at: Double($0) * 60) }
        try await store.save(samples)
        let legacy = try await store.runAnchoredQuery(HKQuantityType(.stepCount), anchor: HKQueryAnchor(fromValue: HKAnchoredObjectQueryNoAnchor))
        #expect(legacy.added.count == 3 && legacy.deleted.isEmpty)
        try await store.delete(samples[0])
        let both = [HKQueryDescriptor(sampleType: HKQuantityType(.stepCount), predicate: nil),
                    HKQueryDescriptor(sampleType: HKQuantityType(.stepCount), predicate: HKQuery.predicateForObjects(withMetadataKey: "x"))]
        let result = try await AnchoredRead.run(store: store, descriptors: both, anchor: legacy.anchor, limit: 0)
        #expect(result.deleted.map(\.uuid) == [samples[0].uuid])
        let everything = try await AnchoredRead.run(store: store, descriptors: [both[0], both[0]], anchor: nil, limit: 0)
        #expect(everything.samples.count == 2)
    }

    @Test("A long-running anchored query with a limit delivers every page, not one per change")
    func pagedUpdates() async throws {
        let store = TestStores.memory()
        try await store.save((0..<7).map { Samples.steps(1, at: Double($0) * 60) })
        let delivered = Inbox<Int>()
        let query = HKAnchoredObjectQuery(type: HKQuantityType(.stepCount), predicate: nil, anchor: nil, limit: 3) { _, added, _, _, _ in
            delivered.append(added?.count ?? 0)
        }
        query.updateHandler = { _, added, deleted, _, _ in delivered.append((added?.count ?? 0) + (deleted?.count ?? 0)) }
        store.execute(query)
        #expect(await delivered.wait(for: 3) == [3, 3, 1])
        try await store.save((0..<4).map { Samples.steps(1, at: 10_000 + Double($0) * 60) })
        #expect(await delivered.wait(for: 5).suffix(2) == [3, 1])
        store.stop(query)
    }

    @Test("Deleting tens of thousands of samples at once works (no SQLite variable limit)")
    func largeDelete() async throws {
        let store = TestStores.memory()
        let count = 40_000
        for batch in 0..<(count / 10_000) {
            try await store.save((0..<10_000).map { Samples.steps(1, at: Double(batch * 10_000 + $0) * 60, minutes: 1) })
        }
        let deleted = try await store.deleteObjects(of: HKQuantityType(.stepCount), predicate: HKQuery.predicateForSamples(withStart: nil, end: nil))
        #expect(deleted == count)
        #expect(try await store.runSampleQuery(HKQuantityType(.stepCount), limit: 1).isEmpty)
        let tombstones = try await store.runAnchoredQuery(HKQuantityType(.stepCount), anchor: HKQueryAnchor(fromValue: 1))
        #expect(tombstones.deleted.count == count)
    }

    @Test("One-sided and repeated date predicates clip statistics")
    func clipping() async throws {
        let store = TestStores.memory()
        try await store.save(Samples.steps(600, at: 0, minutes: 10))
        let since = HKQuery.predicateForSamples(withStart: Samples.reference.addingTimeInterval(300), end: nil)
        let sum = try await store.runStatisticsQuery(HKQuantityType(.stepCount), predicate: since, options: .cumulativeSum)
        #expect(abs((sum.sumQuantity()?.doubleValue(for: .count()) ?? 0) - 300) < 1e-9)
        #expect(sum.startDate == Samples.reference.addingTimeInterval(300))
        #expect(sum.endDate == Samples.reference.addingTimeInterval(600))
        let narrowed = NSCompoundPredicate(andPredicateWithSubpredicates: [
            since, HKQuery.predicateForSamples(withStart: nil, end: Samples.reference.addingTimeInterval(420))])
        let inner = try await store.runStatisticsQuery(HKQuantityType(.stepCount), predicate: narrowed, options: .cumulativeSum)
        #expect(abs((inner.sumQuantity()?.doubleValue(for: .count()) ?? 0) - 120) < 1e-9)
    }

    @Test("Editing a clear column outside the store makes the record fail to open")
    func clearColumnsAreBound() async throws {
        let folder = TemporaryFolder()
        try await TestStores.owner(folder).save(Samples.steps(10, at: 0))
        let queue = try DatabaseQueue(path: folder.database.path)
        try await queue.write { db in try db.execute(sql: "UPDATE sample SET start = start - 86400") }
        try queue.close()
        await #expect { _ = try await TestStores.owner(folder).runSampleQuery(HKQuantityType(.stepCount)) } throws: {
            ($0 as? HealthStoreError)?.kind == .tamperedRecord
        }
    }

    @Test("A foreign SQLite file is left in its journal mode")
    func foreignFileUntouched() async throws {
        let folder = TemporaryFolder()
        let queue = try DatabaseQueue(path: folder.database.path)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE notes (body TEXT)") }
        try queue.close()
        let before = try Data(contentsOf: folder.database)
        #expect(throws: HealthStoreError.self) { try TestStores.owner(folder).open() }
        let after = try Data(contentsOf: folder.database)
        #expect(after == before)
        #expect(after[18] == 1 && after[19] == 1, "the file was switched to WAL")
    }

    @Test("Impossible birth dates and unbounded sync versions are invalid arguments")
    func invalidInput() async throws {
        let store = TestStores.memory()
        #expect(throws: HKError.self) { try store.setDateOfBirth(DateComponents(year: 1990, month: 2, day: 31)) }
        try store.setDateOfBirth(DateComponents(year: 2000, month: 2, day: 29))
        await #expect(throws: HKError.self) {
            try await store.save(Samples.steps(1, at: 0, metadata: [HKMetadataKeySyncIdentifier: "a", HKMetadataKeySyncVersion: 1e30]))
        }
        await #expect(throws: HKError.self) {
            try await store.save(Samples.steps(1, at: 0, metadata: [HKMetadataKeySyncIdentifier: "a", HKMetadataKeySyncVersion: 1.5]))
        }
    }

    @Test("Deleting by UUID and associating need permission, and hide what the caller cannot see")
    func permissions() async throws {
        let folder = TemporaryFolder()
        let watch = TestStores.app(folder, bundle: "com.example.watch")
        try await watch.requestAuthorization(toShare: [HKQuantityType(.heartRate)], read: [])
        let secret = Samples.heartRate(70, at: 0)
        try await watch.save(secret)
        let app = TestStores.app(folder, bundle: "com.example.app")
        try await app.requestAuthorization(toShare: [HKObjectType.workoutType()], read: [])
        // The app cannot read heart rate: the watch's sample is as if absent.
        #expect(try await app.deleteObjects(withUUIDs: [secret.uuid]) == 0)
        let run = HKWorkout(activityType: .running, start: Samples.reference, end: Samples.reference.addingTimeInterval(60))
        try await app.save(run)
        await #expect { try await app.add([secret], to: run) } throws: { ($0 as? HKError)?.code == .errorInvalidArgument }
        // An app that may read but not share sees it and is told no.
        let reader = TestStores.app(folder, bundle: "com.example.reader")
        try await reader.requestAuthorization(toShare: [], read: [HKQuantityType(.heartRate)])
        await #expect { _ = try await reader.deleteObjects(withUUIDs: [secret.uuid]) } throws: {
            ($0 as? HKError)?.code == .errorAuthorizationDenied
        }
        #expect(try await watch.deleteObjects(withUUIDs: [secret.uuid]) == 1)
        withExtendedLifetime(folder) {}
    }
}
