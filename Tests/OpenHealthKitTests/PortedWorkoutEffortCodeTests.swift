import Foundation
import OpenHealthKit
import Testing

/// Workout effort code as Apple's documentation and forums write it (iOS 18: relating a
/// `workoutEffortScore` sample to a workout, reading it back with `HKWorkoutEffortRelationshipQuery`
/// and its descriptor, and the related-samples predicate), changed only where Swift 6 strict
/// concurrency requires it. It must compile against `import OpenHealthKit` and behave as documented.
@Suite("HealthKit workout effort code, ported by changing the import")
struct PortedWorkoutEffortCodeTests {
    private func makeStore(role: HKHealthStore.Configuration.Role = .owner, folder: URL? = nil) -> (HKHealthStore, URL) {
        let folder = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("ported-effort-\(UUID().uuidString)")
        let store = HKHealthStore(configuration: .init(location: .file(folder.appendingPathComponent("health.sqlite")),
                                                       key: .keyFile(folder.appendingPathComponent("health.key")),
                                                       source: HKSource(name: "Fitness", bundleIdentifier: "org.example.fitness"), role: role))
        return (store, folder)
    }

    private func effort(_ value: Double, estimated: Bool = false, at date: Date) -> HKQuantitySample {
        HKQuantitySample(type: HKQuantityType(estimated ? .estimatedWorkoutEffortScore : .workoutEffortScore),
                         quantity: HKQuantity(unit: .appleEffortScore(), doubleValue: value), start: date, end: date)
    }

    @Test("Rate a workout's effort: relate the sample (completion and async forms), read it back by query, descriptor and predicate, unrelate it")
    func relateReadUnrelate() async throws {
        let (healthStore, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date(timeIntervalSinceReferenceDate: 790_000_000)
        let workout = HKWorkout(activityType: .running, start: start, end: start.addingTimeInterval(1_800))
        let other = HKWorkout(activityType: .cycling, start: start.addingTimeInterval(7_200), end: start.addingTimeInterval(9_000))
        let sample = effort(7, at: start.addingTimeInterval(1_800))
        let estimate = effort(5, estimated: true, at: start.addingTimeInterval(1_800))
        try await healthStore.save([workout, other, sample, estimate])

        // As Apple's DTS answer writes it: relate the rating to the finished workout.
        let related: Bool = await withCheckedContinuation { done in
            healthStore.relateWorkoutEffortSample(sample, with: workout, activity: nil) { success, error in
                done.resume(returning: success && error == nil)
            }
        }
        #expect(related)
        try await healthStore.relateWorkoutEffortSample(estimate, with: workout, activity: nil)

        // Reading it back: the query's handler gets the relationships and an anchor.
        let (relationships, anchor): ([HKWorkoutEffortRelationship], HKQueryAnchor?) = await withCheckedContinuation { done in
            let query = HKWorkoutEffortRelationshipQuery(predicate: nil, anchor: nil, options: .default) { _, relationships, anchor, _ in
                done.resume(returning: (relationships ?? [], anchor))
            }
            healthStore.execute(query)
        }
        let relationship = try #require(relationships.first)
        #expect(relationships.count == 1)
        #expect(relationship.workout.uuid == workout.uuid && relationship.activity == nil)
        #expect(Set(relationship.samples?.map(\.uuid) ?? []) == [sample.uuid, estimate.uuid])

        // The most relevant sample is the person's own rating, not the estimate.
        let mostRelevant = try await HKWorkoutEffortRelationshipQueryDescriptor(predicate: nil, anchor: nil, option: .mostRelevant)
            .result(for: healthStore)
        let score = try #require(mostRelevant.relationships.first?.samples?.first as? HKQuantitySample)
        #expect(score.uuid == sample.uuid && score.quantity.doubleValue(for: .appleEffortScore()) == 7)

        // A workout predicate selects workouts; nothing is related to the ride.
        let rides = try await HKWorkoutEffortRelationshipQueryDescriptor(predicate: HKQuery.predicateForWorkouts(with: .cycling), anchor: nil,
                                                                         option: .default).result(for: healthStore)
        #expect(rides.relationships.isEmpty)

        // The samples related to a workout, by the documented predicate.
        let query = HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.workoutEffortScore),
                                                                         predicate: HKQuery.predicateForWorkoutEffortSamplesRelated(workout: workout,
                                                                                                                                   activity: nil))],
                                            sortDescriptors: [])
        #expect(try await query.result(for: healthStore).map(\.uuid) == [sample.uuid])
        let unrelatedQuery = HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.workoutEffortScore),
                                                                                  predicate: HKQuery.predicateForWorkoutEffortSamplesRelated(
                                                                                    workout: other, activity: nil))],
                                                     sortDescriptors: [])
        #expect(try await unrelatedQuery.result(for: healthStore).isEmpty)

        // Nothing new after the anchor; a new relationship is.
        let later = try await HKWorkoutEffortRelationshipQueryDescriptor(predicate: nil, anchor: anchor, option: .default).result(for: healthStore)
        #expect(later.relationships.isEmpty)
        let rideEffort = effort(4, at: start.addingTimeInterval(9_000))
        try await healthStore.save(rideEffort)
        try await healthStore.relateWorkoutEffortSample(rideEffort, with: other, activity: nil)
        let afterRide = try await HKWorkoutEffortRelationshipQueryDescriptor(predicate: nil, anchor: later.newAnchor, option: .default)
            .result(for: healthStore)
        #expect(afterRide.relationships.map(\.workout.uuid) == [other.uuid])

        // Unrelate: the sample stays, the relationship goes.
        let unrelated: Bool = await withCheckedContinuation { done in
            healthStore.unrelateWorkoutEffortSample(sample, from: workout, activity: nil) { success, error in
                done.resume(returning: success && error == nil)
            }
        }
        #expect(unrelated)
        #expect(try await query.result(for: healthStore).isEmpty)
        let remaining = try await HKWorkoutEffortRelationshipQueryDescriptor(predicate: nil, anchor: nil, option: .default).result(for: healthStore)
        #expect(remaining.relationships.first { $0.workout.uuid == workout.uuid }?.samples?.map(\.uuid) == [estimate.uuid])
        // Unrelating again is an error, as is relating a sample of another type or an activity of another workout.
        await #expect(throws: HKError.self) { try await healthStore.unrelateWorkoutEffortSample(sample, from: workout, activity: nil) }
        let steps = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 10), start: start, end: start)
        try await healthStore.save(steps)
        await #expect(throws: HKError.self) { try await healthStore.relateWorkoutEffortSample(steps, with: workout, activity: nil) }
        let foreignActivity = HKWorkoutActivity(workoutConfiguration: HKWorkoutConfiguration(), start: start, end: nil, metadata: nil)
        await #expect(throws: HKError.self) { try await healthStore.relateWorkoutEffortSample(sample, with: workout, activity: foreignActivity) }
        // An unsaved workout cannot be related to.
        let unsaved = HKWorkout(activityType: .yoga, start: start, end: start.addingTimeInterval(60))
        await #expect(throws: HKError.self) { try await healthStore.relateWorkoutEffortSample(sample, with: unsaved, activity: nil) }
    }

    @Test("A multisport workout's leg gets its own effort; the predicate with the activity finds only that leg's sample")
    func activityEffort() async throws {
        let (healthStore, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .swimBikeRun
        let builder = HKWorkoutBuilder(healthStore: healthStore, configuration: configuration, device: nil)
        let start = Date(timeIntervalSinceReferenceDate: 791_000_000)
        try await builder.beginCollection(at: start)
        let swimConfiguration = HKWorkoutConfiguration()
        swimConfiguration.activityType = .swimming
        let swim = HKWorkoutActivity(workoutConfiguration: swimConfiguration, start: start, end: start.addingTimeInterval(1_800), metadata: nil)
        try await builder.addWorkoutActivity(swim)
        let bikeConfiguration = HKWorkoutConfiguration()
        bikeConfiguration.activityType = .cycling
        let bike = HKWorkoutActivity(workoutConfiguration: bikeConfiguration, start: start.addingTimeInterval(1_800),
                                     end: start.addingTimeInterval(5_400), metadata: nil)
        try await builder.addWorkoutActivity(bike)
        try await builder.endCollection(at: start.addingTimeInterval(5_400))
        let workout = try #require(try await builder.finishWorkout())

        let swimEffort = effort(8, at: start.addingTimeInterval(1_800))
        let bikeEffort = effort(6, at: start.addingTimeInterval(5_400))
        try await healthStore.save([swimEffort, bikeEffort])
        try await healthStore.relateWorkoutEffortSample(swimEffort, with: workout, activity: swim)
        try await healthStore.relateWorkoutEffortSample(bikeEffort, with: workout, activity: bike)

        let result = try await HKWorkoutEffortRelationshipQueryDescriptor(predicate: nil, anchor: nil, option: .default).result(for: healthStore)
        #expect(result.relationships.map { $0.activity?.uuid } == [swim.uuid, bike.uuid])
        #expect(result.relationships.map { $0.samples?.map(\.uuid) ?? [] } == [[swimEffort.uuid], [bikeEffort.uuid]])
        let bikeOnly = HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.workoutEffortScore),
                                                                            predicate: HKQuery.predicateForWorkoutEffortSamplesRelated(
                                                                                workout: workout, activity: bike))],
                                               sortDescriptors: [])
        #expect(try await bikeOnly.result(for: healthStore).map(\.uuid) == [bikeEffort.uuid])
        // A leg's relationship is removed by naming the leg.
        await #expect(throws: HKError.self) { try await healthStore.unrelateWorkoutEffortSample(bikeEffort, from: workout, activity: nil) }
        try await healthStore.unrelateWorkoutEffortSample(bikeEffort, from: workout, activity: bike)
        #expect(try await bikeOnly.result(for: healthStore).isEmpty)
    }

    @Test("Relationships survive reopening the store, and deleting the rated sample removes its relationship")
    func persistedAndDeleted() async throws {
        let (healthStore, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date(timeIntervalSinceReferenceDate: 792_000_000)
        let workout = HKWorkout(activityType: .rowing, start: start, end: start.addingTimeInterval(600))
        let sample = effort(9, at: start.addingTimeInterval(600))
        try await healthStore.save([workout, sample])
        try await healthStore.relateWorkoutEffortSample(sample, with: workout, activity: nil)

        let (reopened, _) = makeStore(folder: folder)
        let read = try await HKWorkoutEffortRelationshipQueryDescriptor(predicate: nil, anchor: nil, option: .default).result(for: reopened)
        #expect(read.relationships.first?.samples?.map(\.uuid) == [sample.uuid])
        try await reopened.delete(sample)
        let afterDelete = try await HKWorkoutEffortRelationshipQueryDescriptor(predicate: nil, anchor: nil, option: .default).result(for: reopened)
        #expect(afterDelete.relationships.isEmpty)
    }
}
