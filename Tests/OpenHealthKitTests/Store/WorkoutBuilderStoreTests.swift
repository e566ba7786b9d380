import Foundation
import Testing
@testable import OpenHealthKit

@Suite("HKWorkoutBuilder, workout activities and statistics in the store")
struct WorkoutBuilderStoreTests {
    private static let start = Samples.reference

    private static func configuration(_ type: HKWorkoutActivityType) -> HKWorkoutConfiguration {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = type
        return configuration
    }

    private static func energy(_ kilocalories: Double, from: TimeInterval, to: TimeInterval) -> HKQuantitySample {
        HKQuantitySample(type: HKQuantityType(.activeEnergyBurned), quantity: HKQuantity(unit: .kilocalorie(), doubleValue: kilocalories),
                         start: start.addingTimeInterval(from), end: start.addingTimeInterval(to))
    }

    private static func event(_ type: HKWorkoutEventType, at offset: TimeInterval) -> HKWorkoutEvent {
        HKWorkoutEvent(type: type, dateInterval: DateInterval(start: start.addingTimeInterval(offset), duration: 0), metadata: nil)
    }

    @Test("elapsedTime(at:) leaves out paused time; a pause added later for a past moment shortens it; no resume pauses to the end")
    func elapsedTimeWithPauses() async throws {
        let builder = HKWorkoutBuilder(healthStore: TestStores.memory(), configuration: Self.configuration(.walking), device: nil)
        #expect(builder.elapsedTime(at: Self.start.addingTimeInterval(600)) == 0)
        try await builder.beginCollection(at: Self.start)
        #expect(builder.elapsedTime(at: Self.start.addingTimeInterval(600)) == 600)
        try await builder.addWorkoutEvents([Self.event(.pause, at: 600), Self.event(.resume, at: 900)])
        #expect(builder.elapsedTime(at: Self.start.addingTimeInterval(720)) == 600)
        #expect(builder.elapsedTime(at: Self.start.addingTimeInterval(1_200)) == 900)
        // Events arrive out of order; motion pauses count as pauses.
        try await builder.addWorkoutEvents([Self.event(.motionResumed, at: 400), Self.event(.motionPaused, at: 300)])
        #expect(builder.elapsedTime(at: Self.start.addingTimeInterval(1_200)) == 800)
        try await builder.addWorkoutEvents([Self.event(.pause, at: 1_500)])
        try await builder.endCollection(at: Self.start.addingTimeInterval(2_000))
        #expect(builder.elapsedTime(at: Self.start.addingTimeInterval(5_000)) == 1_100)
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.duration == 1_100)
        #expect(workout.workoutEvents?.count == 5)
    }

    @Test("A motion resume does not end the person's pause: the workout is paused while either pair is open")
    func motionAndUserPausesAreSeparate() async throws {
        let builder = HKWorkoutBuilder(healthStore: TestStores.memory(), configuration: Self.configuration(.running), device: nil)
        try await builder.beginCollection(at: Self.start)
        // Paused by the person at 100 s; the watch pauses at 150 s and resumes at 200 s; the person resumes at 400 s.
        try await builder.addWorkoutEvents([Self.event(.pause, at: 100), Self.event(.motionPaused, at: 150),
                                            Self.event(.motionResumed, at: 200), Self.event(.resume, at: 400)])
        #expect(builder.elapsedTime(at: Self.start.addingTimeInterval(300)) == 100)
        #expect(builder.elapsedTime(at: Self.start.addingTimeInterval(500)) == 200)
        // A person's resume inside a motion pause does not end it either.
        try await builder.addWorkoutEvents([Self.event(.motionPaused, at: 600), Self.event(.pause, at: 650),
                                            Self.event(.resume, at: 700), Self.event(.motionResumed, at: 800)])
        try await builder.endCollection(at: Self.start.addingTimeInterval(1_000))
        #expect(builder.elapsedTime(at: Self.start.addingTimeInterval(1_000)) == 500)
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.duration == 500)
    }

    @Test("finishWorkout() saves the workout once: when associating its samples fails, a retry associates again and saves no second workout")
    func finishRetryDoesNotSaveTwice() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let builder = HKWorkoutBuilder(healthStore: store, configuration: Self.configuration(.walking), device: nil)
        try await builder.beginCollection(at: Self.start)
        let kept = Self.energy(30, from: 0, to: 300)
        let deleted = Self.energy(10, from: 300, to: 600)
        try await builder.addSamples([kept, deleted])
        try await builder.endCollection(at: Self.start.addingTimeInterval(600))
        // The sample is gone before the association: it fails after the workout is saved.
        try await store.delete(deleted)
        await #expect(throws: HKError.self) { try await builder.finishWorkout() }
        await #expect(throws: HKError.self) { try await builder.finishWorkout() }
        let workouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store)
        #expect(workouts.count == 1)
    }

    @Test("Saving, reading (sample and anchored queries) and deleting a built workout keeps its activities and statistics; the deletion is reported")
    func roundTripWithDeletion() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let builder = HKWorkoutBuilder(healthStore: store, configuration: Self.configuration(.highIntensityIntervalTraining), device: nil)
        try await builder.beginCollection(at: Self.start)
        let work = HKWorkoutActivity(workoutConfiguration: Self.configuration(.highIntensityIntervalTraining), start: Self.start,
                                     end: Self.start.addingTimeInterval(300), metadata: ["Interval": "work"])
        let rest = HKWorkoutActivity(workoutConfiguration: Self.configuration(.highIntensityIntervalTraining),
                                     start: Self.start.addingTimeInterval(300), end: Self.start.addingTimeInterval(600),
                                     metadata: ["Interval": "rest"])
        try await builder.addWorkoutActivity(work)
        try await builder.addWorkoutActivity(rest)
        try await builder.addSamples([Self.energy(60, from: 0, to: 300), Self.energy(20, from: 300, to: 600)])
        try await builder.addMetadata([HKMetadataKeyWorkoutBrandName: "Intervals"])
        #expect(builder.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(for: .kilocalorie()) == 80)
        try await builder.endCollection(at: Self.start.addingTimeInterval(600))
        let saved = try #require(try await builder.finishWorkout())

        let descriptor = HKAnchoredObjectQueryDescriptor(predicates: [.workout()], anchor: nil)
        let first = try await descriptor.result(for: store)
        let read = try #require(first.addedSamples.first)
        #expect(first.addedSamples.count == 1 && read.uuid == saved.uuid)
        #expect(read.metadata?[HKMetadataKeyWorkoutBrandName] as? String == "Intervals")
        #expect(read.totalEnergyBurned?.doubleValue(for: .kilocalorie()) == 80)
        #expect(read.workoutActivities.map(\.uuid) == [work.uuid, rest.uuid])
        #expect(read.workoutActivities.map { $0.metadata?["Interval"] as? String } == ["work", "rest"])
        #expect(read.workoutActivities.map { $0.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?
            .doubleValue(for: .kilocalorie()) } == [60, 20])
        #expect(read.workoutActivities[1].allStatistics.count == 1)
        let statistics = try #require(read.statistics(for: HKQuantityType(.activeEnergyBurned)))
        #expect(statistics.startDate == Self.start && statistics.endDate == Self.start.addingTimeInterval(600))

        // A later activity query by date finds the workout; one before it does not.
        let late = HKQuery.predicateForWorkouts(activityPredicate: HKQuery.predicateForWorkoutActivities(
            start: Self.start.addingTimeInterval(400), end: nil, options: .strictStartDate))
        #expect(try await HKSampleQueryDescriptor(predicates: [.workout(late)], sortDescriptors: []).result(for: store).isEmpty)
        let within = HKQuery.predicateForWorkouts(activityPredicate: HKQuery.predicateForWorkoutActivities(
            start: Self.start.addingTimeInterval(250), end: Self.start.addingTimeInterval(700), options: .strictStartDate))
        #expect(try await HKSampleQueryDescriptor(predicates: [.workout(within)], sortDescriptors: []).result(for: store).count == 1)

        try await store.delete(read)
        let next = try await HKAnchoredObjectQueryDescriptor(predicates: [.workout()], anchor: first.newAnchor).result(for: store)
        #expect(next.addedSamples.isEmpty)
        #expect(next.deletedObjects.map(\.uuid) == [saved.uuid])
    }

    @Test("A workout saved without activities has the one activity HealthKit assigns, the same at every read")
    func defaultActivity() async throws {
        let store = TestStores.memory()
        let workout = HKWorkout(activityType: .yoga, start: Self.start, end: Self.start.addingTimeInterval(1_800))
        try await store.save(workout)
        let read = try #require(try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store).first)
        let activity = try #require(read.workoutActivities.first)
        #expect(read.workoutActivities.count == 1)
        #expect(activity.workoutConfiguration.activityType == .yoga && activity.duration == 1_800)
        #expect(activity.startDate == Self.start && activity.endDate == Self.start.addingTimeInterval(1_800))
        #expect(read.workoutActivities.first?.uuid == activity.uuid && activity.uuid != read.uuid)
        #expect(read.allStatistics.isEmpty)
        let yoga = HKQuery.predicateForWorkouts(activityPredicate: HKQuery.predicateForWorkoutActivities(workoutActivityType: .yoga))
        #expect(try await HKSampleQueryDescriptor(predicates: [.workout(yoga)], sortDescriptors: []).result(for: store).count == 1)
    }

    @Test("A workout's pause and resume events shorten the duration HealthKit's initializer computes")
    func initializerDurationWithPauses() {
        let workout = HKWorkout(activityType: .running, start: Self.start, end: Self.start.addingTimeInterval(3_600),
                                workoutEvents: [Self.event(.pause, at: 600), Self.event(.resume, at: 1_200)],
                                totalEnergyBurned: nil, totalDistance: nil, metadata: nil)
        #expect(workout.duration == 3_000)
    }

    @Test("Activities' metadata and statistics are sealed: none of it is in the file in the clear")
    func activitiesEncryptedAtRest() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let builder = HKWorkoutBuilder(healthStore: store, configuration: Self.configuration(.swimBikeRun), device: nil)
        try await builder.beginCollection(at: Self.start)
        try await builder.addWorkoutActivity(HKWorkoutActivity(workoutConfiguration: Self.configuration(.swimming), start: Self.start,
                                                               end: Self.start.addingTimeInterval(60), metadata: ["Coach": "ACTIVITY-NOTE-4411"]))
        try await builder.addSamples([Self.energy(12_345.678_9, from: 0, to: 60)])
        try await builder.endCollection(at: Self.start.addingTimeInterval(60))
        _ = try await builder.finishWorkout()
        var bytes = Data()
        for suffix in ["", "-wal", "-shm"] { bytes += FileManager.default.contents(atPath: folder.database.path + suffix) ?? Data() }
        #expect(!bytes.isEmpty)
        for needle in ["ACTIVITY-NOTE-4411", "Coach", "swimmingLocation", "activityType\""] {
            #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) is stored in the clear")
        }
    }

    @Test("The builder refuses misuse with errorInvalidArgument and keeps working after a refused call")
    func misuse() async throws {
        let store = TestStores.memory()
        let builder = HKWorkoutBuilder(healthStore: store, configuration: Self.configuration(.swimBikeRun), device: nil)
        await #expect(throws: HKError.self) { try await builder.addSamples([Self.energy(1, from: 0, to: 1)]) }
        await #expect(throws: HKError.self) { try await builder.endCollection(at: Self.start) }
        try await builder.beginCollection(at: Self.start)
        await #expect(throws: HKError.self) { try await builder.beginCollection(at: Self.start) }
        // A swim-bike-run workout takes only swimming, cycling, running and transitions.
        await #expect(throws: HKError.self) {
            try await builder.addWorkoutActivity(HKWorkoutActivity(workoutConfiguration: Self.configuration(.yoga), start: Self.start,
                                                                   end: nil, metadata: nil))
        }
        await #expect(throws: HKError.self) {
            try await builder.addWorkoutActivity(HKWorkoutActivity(workoutConfiguration: Self.configuration(.running),
                                                                   start: Self.start.addingTimeInterval(-1), end: nil, metadata: nil))
        }
        await #expect(throws: HKError.self) { try await builder.updateActivity(uuid: UUID(), end: Self.start) }
        await #expect(throws: HKError.self) {
            try await builder.addSamples([HKWorkout(activityType: .running, start: Self.start, end: Self.start)])
        }
        await #expect(throws: HKError.self) { _ = try await builder.finishWorkout() }
        await #expect(throws: HKError.self) { try await builder.endCollection(at: Self.start.addingTimeInterval(-10)) }
        try await builder.endCollection(at: Self.start.addingTimeInterval(10))
        #expect(try await builder.finishWorkout() != nil)
        await #expect(throws: HKError.self) { _ = try await builder.finishWorkout() }

        let discarded = HKWorkoutBuilder(healthStore: store, configuration: Self.configuration(.running), device: nil)
        try await discarded.beginCollection(at: Self.start)
        discarded.discardWorkout()
        await #expect(throws: HKError.self) { try await discarded.addMetadata(["a": 1]) }
        #expect(try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store).count == 1)
        // A predicate that is not made of activity predicates is refused by the query.
        let bogus = HKQuery.predicateForWorkouts(activityPredicate: HKQuery.predicateForSamples(withStart: nil, end: nil))
        await #expect(throws: (any Error).self) {
            _ = try await HKSampleQueryDescriptor(predicates: [.workout(bogus)], sortDescriptors: []).result(for: store)
        }
    }

    @Test("An app without share permission for workouts cannot finish one; the builder stays ended so a retry works")
    func finishNeedsPermission() async throws {
        let folder = TemporaryFolder()
        let app = TestStores.app(folder, bundle: "org.example.runner")
        let builder = HKWorkoutBuilder(healthStore: app, configuration: Self.configuration(.running), device: nil)
        try await builder.beginCollection(at: Self.start)
        try await builder.endCollection(at: Self.start.addingTimeInterval(60))
        await #expect(throws: HKError.self) { _ = try await builder.finishWorkout() }
        try await app.requestAuthorization(toShare: [HKObjectType.workoutType()], read: [])
        #expect(try await builder.finishWorkout()?.duration == 60)
    }

    @Test("seriesBuilder(for:) gives one route builder whose route links to the finished workout")
    func routeThroughSeriesBuilder() async throws {
        let store = TestStores.memory()
        let builder = HKWorkoutBuilder(healthStore: store, configuration: Self.configuration(.running), device: nil)
        let routeBuilder = try #require(builder.seriesBuilder(for: HKSeriesType.workoutRoute()) as? HKWorkoutRouteBuilder)
        #expect(builder.seriesBuilder(for: HKSeriesType.workoutRoute()) === routeBuilder)
        try await builder.beginCollection(at: Self.start)
        try await routeBuilder.insertRouteData([CLLocation(coordinate: CLLocationCoordinate2D(latitude: 52, longitude: 13), altitude: 30,
                                                           horizontalAccuracy: 5, verticalAccuracy: 5, timestamp: Self.start.addingTimeInterval(5))])
        try await builder.endCollection(at: Self.start.addingTimeInterval(60))
        let workout = try #require(try await builder.finishWorkout())
        let route = try await routeBuilder.finishRoute(with: workout, metadata: nil)
        let routes = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKSeriesType.workoutRoute(),
                                                                            predicate: HKQuery.predicateForObjects(from: workout))],
                                                       sortDescriptors: []).result(for: store)
        #expect(routes.map(\.uuid) == [route.uuid])
    }
}
