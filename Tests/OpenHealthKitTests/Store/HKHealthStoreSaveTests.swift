import Foundation
import Testing
@testable import OpenHealthKit

@Suite("Saving and reading back")
struct HKHealthStoreSaveTests {
    @Test("A quantity sample comes back with its UUID, dates, value in any compatible unit, metadata and device")
    func quantityRoundTrip() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let device = HKDevice(name: "Band", manufacturer: "Acme", model: "B1", hardwareVersion: nil, firmwareVersion: "2.1",
                              softwareVersion: nil, localIdentifier: "band-7", udiDeviceIdentifier: nil)
        let taken = Date(timeIntervalSinceReferenceDate: 780_000_000)
        let sample = HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: Samples.bpm, doubleValue: 72),
                                      start: Samples.reference, end: Samples.reference.addingTimeInterval(60), device: device,
                                      metadata: [HKMetadataKeyHeartRateMotionContext: 1, "note": "after coffee",
                                                 HKMetadataKeyWasUserEntered: true, "taken": taken,
                                                 "threshold": HKQuantity(unit: Samples.bpm, doubleValue: 120)])
        try await store.save(sample)

        let read = try await store.runSampleQuery(HKQuantityType(.heartRate))
        #expect(read.count == 1)
        let back = try #require(read.first as? HKDiscreteQuantitySample)
        #expect(back.uuid == sample.uuid)
        #expect(back.startDate == sample.startDate && back.endDate == sample.endDate)
        #expect(abs(back.quantity.doubleValue(for: Samples.bpm) - 72) < 1e-9)
        #expect(abs(back.quantity.doubleValue(for: HKUnit(from: "count/s")) - 1.2) < 1e-12)
        #expect(back.device == device)
        #expect(back.metadata?["note"] as? String == "after coffee")
        #expect(back.metadata?[HKMetadataKeyWasUserEntered] as? Bool == true)
        #expect(back.metadata?[HKMetadataKeyHeartRateMotionContext] as? Int == 1)
        #expect(back.metadata?["taken"] as? Date == taken)
        let threshold = try #require(back.metadata?["threshold"] as? HKQuantity)
        #expect(abs(threshold.doubleValue(for: Samples.bpm) - 120) < 1e-9)
        #expect(back.sourceRevision.source.bundleIdentifier == "org.example.owner")
        #expect(back.count == 1)
    }

    @Test("Cumulative types come back as HKCumulativeQuantitySample, discrete ones as HKDiscreteQuantitySample")
    func subclasses() async throws {
        let store = TestStores.memory()
        try await store.save([Samples.steps(100, at: 0), Samples.heartRate(60, at: 0)])
        #expect(try await store.runSampleQuery(HKQuantityType(.stepCount)).first is HKCumulativeQuantitySample)
        #expect(try await store.runSampleQuery(HKQuantityType(.heartRate)).first is HKDiscreteQuantitySample)
    }

    @Test("Glucose saved in mmol/L reads back in mg/dL through the molar mass")
    func glucoseUnits() async throws {
        let store = TestStores.memory()
        let mmol = HKUnit(from: "mmol<180.15588000005408>/L")
        try await store.save(HKQuantitySample(type: HKQuantityType(.bloodGlucose), quantity: HKQuantity(unit: mmol, doubleValue: 5.5),
                                              start: Samples.reference, end: Samples.reference))
        let sample = try #require(try await store.runSampleQuery(HKQuantityType(.bloodGlucose)).first as? HKQuantitySample)
        #expect(abs(sample.quantity.doubleValue(for: HKUnit(from: "mg/dL")) - 5.5 * 18.015588000005408) < 1e-9)
        #expect(abs(sample.quantity.doubleValue(for: HKUnit(from: "mmol<180.1558800000541>/L")) - 5.5) < 1e-9)
    }

    @Test("Saving a sample whose unit does not fit its type fails and stores nothing")
    func incompatibleUnit() async throws {
        let store = TestStores.memory()
        let good = Samples.steps(10, at: 0)
        let bad = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .gram(), doubleValue: 3),
                                   start: Samples.reference, end: Samples.reference)
        await #expect(throws: HKError.self) { try await store.save([good, bad]) }
        #expect(try await store.runSampleQuery(HKQuantityType(.stepCount)).isEmpty)
    }

    @Test("Validation errors name the problem", arguments: [
        "end before start", "unknown category value", "sync version without identifier", "non-finite value", "bad metadata",
    ])
    func validation(_ case: String) async throws {
        let store = TestStores.memory()
        let sample: HKSample
        switch `case` {
        case "end before start":
            sample = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 1),
                                      start: Samples.reference, end: Samples.reference.addingTimeInterval(-1))
        case "unknown category value":
            sample = HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: 99, start: Samples.reference, end: Samples.reference)
        case "sync version without identifier":
            sample = Samples.steps(1, at: 0, metadata: [HKMetadataKeySyncVersion: 1])
        case "non-finite value":
            sample = Samples.steps(.infinity, at: 0)
        default:
            sample = Samples.steps(1, at: 0, metadata: ["bad": [1, 2, 3]])
        }
        do {
            try await store.save(sample)
            Issue.record("saving should fail for \(`case`)")
        } catch let error as HKError {
            #expect(error.code == .errorInvalidArgument)
            #expect(!error.message.isEmpty)
        }
    }

    @Test("Saving the same object twice is an error and keeps one copy")
    func duplicateUUID() async throws {
        let store = TestStores.memory()
        let sample = Samples.steps(5, at: 0)
        try await store.save(sample)
        await #expect(throws: HKError.self) { try await store.save(sample) }
        #expect(try await store.runSampleQuery(HKQuantityType(.stepCount)).count == 1)
    }

    @Test("Sync identifier and version upsert: a higher version replaces, a lower one is dropped")
    func syncUpsert() async throws {
        let store = TestStores.memory()
        let v1 = Samples.steps(100, at: 0, metadata: [HKMetadataKeySyncIdentifier: "walk-1", HKMetadataKeySyncVersion: 1])
        try await store.save(v1)
        let first = try await store.runAnchoredQuery(HKQuantityType(.stepCount), anchor: nil)
        let v2 = Samples.steps(150, at: 0, metadata: [HKMetadataKeySyncIdentifier: "walk-1", HKMetadataKeySyncVersion: 2])
        try await store.save(v2)
        let stale = Samples.steps(90, at: 0, metadata: [HKMetadataKeySyncIdentifier: "walk-1", HKMetadataKeySyncVersion: 1])
        try await store.save(stale)
        let samples = try await store.runSampleQuery(HKQuantityType(.stepCount))
        #expect(samples.map(\.uuid) == [v2.uuid])
        let changes = try await store.runAnchoredQuery(HKQuantityType(.stepCount), anchor: first.anchor)
        #expect(changes.added.map(\.uuid) == [v2.uuid])
        #expect(changes.deleted.map(\.uuid) == [v1.uuid])
        #expect(changes.deleted.first?.metadata?[HKMetadataKeySyncIdentifier] as? String == "walk-1")
        #expect(changes.deleted.first?.metadata?[HKMetadataKeySyncVersion] as? Int == 1)
    }

    @Test("Sync identifiers are scoped to their source")
    func syncScopedToSource() async throws {
        let folder = TemporaryFolder()
        let phone = TestStores.app(folder, bundle: "com.example.phone")
        let watch = TestStores.app(folder, bundle: "com.example.watch")
        for app in [phone, watch] { try await app.requestAuthorization(toShare: [HKQuantityType(.stepCount)], read: [HKQuantityType(.stepCount)]) }
        try await phone.save(Samples.steps(1, at: 0, metadata: [HKMetadataKeySyncIdentifier: "x", HKMetadataKeySyncVersion: 1]))
        try await watch.save(Samples.steps(2, at: 0, metadata: [HKMetadataKeySyncIdentifier: "x", HKMetadataKeySyncVersion: 1]))
        #expect(try await phone.runSampleQuery(HKQuantityType(.stepCount)).count == 2)
    }

    @Test("Category samples, correlations and workouts round-trip")
    func otherKinds() async throws {
        let store = TestStores.memory()
        let sleep = Samples.sleep(.asleepREM, at: 0, minutes: 30)
        let systolic = HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic),
                                        quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 120),
                                        start: Samples.reference, end: Samples.reference)
        let diastolic = HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic),
                                         quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 80),
                                         start: Samples.reference, end: Samples.reference)
        let pressure = HKCorrelation(type: HKCorrelationType(.bloodPressure), start: Samples.reference, end: Samples.reference,
                                     objects: [systolic, diastolic], metadata: ["cuff": "left"])
        let run = HKWorkout(activityType: .running, start: Samples.reference, end: Samples.reference.addingTimeInterval(1800),
                            workoutEvents: [HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: Samples.reference, duration: 600),
                                                           metadata: nil)],
                            totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 300),
                            totalDistance: HKQuantity(unit: .mile(), doubleValue: 3), metadata: nil)
        try await store.save([sleep, pressure, run])

        let sleeps = try await store.runSampleQuery(HKCategoryType(.sleepAnalysis))
        #expect((sleeps.first as? HKCategorySample)?.value == HKCategoryValueSleepAnalysis.asleepREM.rawValue)

        let correlations = try await store.runSampleQuery(HKCorrelationType(.bloodPressure)).compactMap { $0 as? HKCorrelation }
        #expect(correlations.count == 1)
        let members = try #require(correlations.first).objects
        #expect(Set(members.map(\.uuid)) == [systolic.uuid, diastolic.uuid])
        #expect(correlations.first?.metadata?["cuff"] as? String == "left")
        let systolicBack = correlations.first?.objects(for: HKQuantityType(.bloodPressureSystolic)).first as? HKQuantitySample
        #expect(systolicBack?.quantity.doubleValue(for: .millimeterOfMercury()) == 120)
        // Members are ordinary samples too.
        #expect(try await store.runSampleQuery(HKQuantityType(.bloodPressureDiastolic)).count == 1)
        #expect(try await store.runSampleQuery(HKQuantityType(.bloodPressureDiastolic),
                                               predicate: HKQuery.predicateForObjectsWithNoCorrelation()).isEmpty)

        let workout = try #require(try await store.runSampleQuery(HKObjectType.workoutType()).first as? HKWorkout)
        #expect(workout.workoutActivityType == .running)
        #expect(workout.duration == 1800)
        #expect(abs((workout.totalDistance?.doubleValue(for: .meter()) ?? 0) - 4828.032) < 1e-6)
        #expect(workout.totalEnergyBurned?.doubleValue(for: .kilocalorie()) == 300)
        #expect(workout.workoutEvents?.first?.type == .lap)
    }

    @Test("Correlations refuse members of other types")
    func correlationMembers() async throws {
        let store = TestStores.memory()
        let pressure = HKCorrelation(type: HKCorrelationType(.bloodPressure), start: Samples.reference, end: Samples.reference,
                                     objects: [Samples.steps(1, at: 0)])
        await #expect(throws: HKError.self) { try await store.save(pressure) }
    }

    @Test("Samples associated with a workout are found with predicateForObjects(from:)")
    func workoutAssociation() async throws {
        let store = TestStores.memory()
        let run = HKWorkout(activityType: .running, start: Samples.reference, end: Samples.reference.addingTimeInterval(600))
        let during = [Samples.heartRate(140, at: 60), Samples.heartRate(150, at: 120)]
        let other = Samples.heartRate(60, at: 9_000)
        try await store.save([run] + during + [other])
        try await store.add(during, to: run)
        let found = try await store.runSampleQuery(HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: run))
        #expect(Set(found.map(\.uuid)) == Set(during.map(\.uuid)))
        let walks = try await store.runSampleQuery(HKObjectType.workoutType(), predicate: HKQuery.predicateForWorkouts(with: .walking))
        #expect(walks.isEmpty)
        let runs = try await store.runSampleQuery(HKObjectType.workoutType(), predicate: HKQuery.predicateForWorkouts(with: .running))
        #expect(runs.count == 1)
    }

    @Test("Deleting leaves the other samples; deleting by predicate reports the count")
    func deletion() async throws {
        let store = TestStores.memory()
        let samples = (0..<10).map { Samples.steps(Double($0), at: Double($0) * 3600) }
        try await store.save(samples)
        try await store.delete(samples[0])
        let deleted = try await store.deleteObjects(of: HKQuantityType(.stepCount),
                                                    predicate: HKQuery.predicateForSamples(withStart: Samples.reference.addingTimeInterval(5 * 3600),
                                                                                           end: nil, options: .strictStartDate))
        #expect(deleted == 5)
        let left = try await store.runSampleQuery(HKQuantityType(.stepCount))
        #expect(Set(left.map(\.uuid)) == Set(samples[1..<5].map(\.uuid)))
        await #expect(throws: HKError.self) { try await store.delete(samples[0]) }
    }

    @Test("Characteristics are read-only for apps and set by the owner")
    func characteristics() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        try owner.setBiologicalSex(.female)
        try owner.setBloodType(.oNegative)
        try owner.setDateOfBirth(DateComponents(year: 1984, month: 2, day: 29))
        try owner.setFitzpatrickSkinType(.III)
        try owner.setWheelchairUse(.no)
        #expect(try owner.biologicalSex().biologicalSex == .female)
        #expect(try owner.bloodType().bloodType == .oNegative)
        #expect(try owner.fitzpatrickSkinType().skinType == .III)
        #expect(try owner.wheelchairUse().wheelchairUse == .no)
        let birth = try owner.dateOfBirthComponents()
        #expect(birth.year == 1984 && birth.month == 2 && birth.day == 29)
        #expect(throws: HKError.self) { try owner.setDateOfBirth(DateComponents(year: 1984, month: 13, day: 1)) }

        let app = TestStores.app(folder, bundle: "com.example.app")
        #expect(throws: HKError.self) { try app.setBiologicalSex(.male) }
        // Not authorized: looks exactly like "not set".
        #expect(try app.biologicalSex().biologicalSex == .notSet)
        #expect(throws: HKError.self) { try app.dateOfBirthComponents() }
        try await app.requestAuthorization(toShare: [], read: [HKCharacteristicType(.biologicalSex), HKCharacteristicType(.dateOfBirth)])
        #expect(try app.biologicalSex().biologicalSex == .female)
        #expect(try app.dateOfBirthComponents().year == 1984)
        #expect(try app.bloodType().bloodType == .notSet)
    }

    @Test("The callback forms report success and errors")
    func callbacks() async throws {
        let store = TestStores.memory()
        let sample = Samples.steps(3, at: 0)
        let saved: Bool = await withCheckedContinuation { continuation in
            store.save(sample) { success, _ in continuation.resume(returning: success) }
        }
        #expect(saved)
        let again: (Bool, Bool) = await withCheckedContinuation { continuation in
            store.save(sample) { success, error in continuation.resume(returning: (success, error != nil)) }
        }
        #expect(again == (false, true))
        let deleted: (Bool, Int) = await withCheckedContinuation { continuation in
            store.deleteObjects(of: HKQuantityType(.stepCount), predicate: HKQuery.predicateForObject(with: sample.uuid)) { success, count, _ in
                continuation.resume(returning: (success, count))
            }
        }
        #expect(deleted == (true, 1))
    }
}
