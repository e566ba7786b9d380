import Foundation
import OpenHealthKit
import Testing

/// Workout code as Apple's documentation writes it (HKWorkoutBuilder, HKWorkoutConfiguration,
/// HKWorkoutActivity and the iOS 16 workout predicates), changed only where Swift 6 strict
/// concurrency requires it. It must compile against `import OpenHealthKit` and behave as documented.
@Suite("HealthKit workout code, ported by changing the import")
struct PortedWorkoutCodeTests {
    private func makeStore() -> (HKHealthStore, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ported-workout-\(UUID().uuidString)")
        let store = HKHealthStore(configuration: .init(location: .file(folder.appendingPathComponent("health.sqlite")),
                                                       key: .keyFile(folder.appendingPathComponent("health.key"))))
        return (store, folder)
    }

    @Test("Building a run with completion handlers: begin, add samples, pause and resume, end, finish; duration and statistics")
    func buildRunWithCompletionHandlers() async throws {
        let (store, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let typesToShare: Set = [HKObjectType.workoutType(), HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceWalkingRunning),
                                 HKQuantityType(.heartRate)]
        try await store.requestAuthorization(toShare: typesToShare, read: typesToShare)

        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        configuration.locationType = .outdoor
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: .local())

        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let end = start.addingTimeInterval(30 * 60)
        let began: Bool = await withCheckedContinuation { done in
            builder.beginCollection(withStart: start) { success, error in done.resume(returning: success && error == nil) }
        }
        #expect(began)

        let energy = HKQuantitySample(type: HKQuantityType(.activeEnergyBurned), quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 150),
                                      start: start, end: start.addingTimeInterval(10 * 60))
        let energy2 = HKQuantitySample(type: HKQuantityType(.activeEnergyBurned), quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 170),
                                       start: start.addingTimeInterval(15 * 60), end: end)
        let distance = HKQuantitySample(type: HKQuantityType(.distanceWalkingRunning), quantity: HKQuantity(unit: .meter(), doubleValue: 5_000),
                                        start: start, end: end)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let beats = [130.0, 150.0, 170.0].enumerated().map { index, value in
            HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: bpm, doubleValue: value),
                             start: start.addingTimeInterval(Double(index + 1) * 300), end: start.addingTimeInterval(Double(index + 1) * 300))
        }
        let added: Bool = await withCheckedContinuation { done in
            builder.add([energy, energy2, distance] + beats) { success, error in done.resume(returning: success && error == nil) }
        }
        #expect(added)

        // The runner stops at a light for five minutes.
        let pause = HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: start.addingTimeInterval(10 * 60), duration: 0), metadata: nil)
        let resume = HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: start.addingTimeInterval(15 * 60), duration: 0), metadata: nil)
        let eventsAdded: Bool = await withCheckedContinuation { done in
            builder.addWorkoutEvents([pause, resume]) { success, error in done.resume(returning: success && error == nil) }
        }
        #expect(eventsAdded)
        #expect(builder.elapsedTime(at: start.addingTimeInterval(20 * 60)) == 15 * 60)

        let ended: Bool = await withCheckedContinuation { done in
            builder.endCollection(withEnd: end) { success, error in done.resume(returning: success && error == nil) }
        }
        #expect(ended)
        let workout: HKWorkout? = await withCheckedContinuation { done in
            builder.finishWorkout { workout, error in done.resume(returning: error == nil ? workout : nil) }
        }
        let run = try #require(workout)
        #expect(run.duration == 25 * 60)
        #expect(run.workoutActivityType == .running)
        #expect(run.metadata?[HKMetadataKeyIndoorWorkout] as? Bool == false)
        let energyBurned = run.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()
        #expect(energyBurned?.doubleValue(for: .kilocalorie()) == 320)
        let heartRate = try #require(run.statistics(for: HKQuantityType(.heartRate)))
        #expect(heartRate.minimumQuantity()?.doubleValue(for: bpm) == 130)
        #expect(heartRate.maximumQuantity()?.doubleValue(for: bpm) == 170)
        #expect(run.allStatistics.count == 3)
        #expect(run.totalDistance?.doubleValue(for: .meter()) == 5_000)

        // Read back: the duration, statistics and associated samples are stored.
        let stored = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store)
        let read = try #require(stored.first)
        #expect(read.uuid == run.uuid && read.duration == 25 * 60)
        #expect(read.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(for: .kilocalorie()) == 320)
        #expect(read.statistics(for: HKQuantityType(.heartRate))?.averageQuantity() != nil)
        let associated = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.heartRate),
                                                                                        predicate: HKQuery.predicateForObjects(from: read))],
                                                           sortDescriptors: []).result(for: store)
        #expect(associated.count == 3)
    }

    @Test("A swim-bike-run triathlon built with activities (async); workouts found by their running activity")
    func triathlonWithActivities() async throws {
        let (store, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let types: Set = [HKObjectType.workoutType(), HKQuantityType(.distanceSwimming), HKQuantityType(.distanceCycling),
                          HKQuantityType(.distanceWalkingRunning)]
        try await store.requestAuthorization(toShare: types, read: types)

        // Create the configuration for a multisport workout.
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .swimBikeRun
        configuration.locationType = .outdoor
        let workoutBuilder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        let startDate = Date(timeIntervalSinceReferenceDate: 800_100_000)
        try await workoutBuilder.beginCollection(at: startDate)

        // Start the swimming activity.
        let swimConfiguration = HKWorkoutConfiguration()
        swimConfiguration.activityType = .swimming
        swimConfiguration.swimmingLocationType = .openWater
        let swim = HKWorkoutActivity(workoutConfiguration: swimConfiguration, start: startDate, end: nil, metadata: nil)
        try await workoutBuilder.addWorkoutActivity(swim)
        try await workoutBuilder.addSamples([HKQuantitySample(type: HKQuantityType(.distanceSwimming),
                                                              quantity: HKQuantity(unit: .meter(), doubleValue: 1_500),
                                                              start: startDate, end: startDate.addingTimeInterval(1_800))])
        try await workoutBuilder.updateActivity(uuid: swim.uuid, end: startDate.addingTimeInterval(1_800))

        // The transition, then the bike and the run.
        let transition = HKWorkoutConfiguration()
        transition.activityType = .transition
        try await workoutBuilder.addWorkoutActivity(HKWorkoutActivity(workoutConfiguration: transition, start: startDate.addingTimeInterval(1_800),
                                                                      end: startDate.addingTimeInterval(2_000), metadata: nil))
        let bikeConfiguration = HKWorkoutConfiguration()
        bikeConfiguration.activityType = .cycling
        let bike = HKWorkoutActivity(workoutConfiguration: bikeConfiguration, start: startDate.addingTimeInterval(2_000),
                                     end: startDate.addingTimeInterval(6_000), metadata: ["Wheel": "Disc"])
        try await workoutBuilder.addWorkoutActivity(bike)
        try await workoutBuilder.addSamples([HKQuantitySample(type: HKQuantityType(.distanceCycling),
                                                              quantity: HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: 40),
                                                              start: startDate.addingTimeInterval(2_000), end: startDate.addingTimeInterval(6_000))])
        let runConfiguration = HKWorkoutConfiguration()
        runConfiguration.activityType = .running
        let run = HKWorkoutActivity(workoutConfiguration: runConfiguration, start: startDate.addingTimeInterval(6_000), end: nil, metadata: nil)
        try await workoutBuilder.addWorkoutActivity(run)
        try await workoutBuilder.updateActivity(uuid: run.uuid, adding: ["Shoes": "Racing flats"])
        try await workoutBuilder.addSamples([HKQuantitySample(type: HKQuantityType(.distanceWalkingRunning),
                                                              quantity: HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: 10),
                                                              start: startDate.addingTimeInterval(6_000), end: startDate.addingTimeInterval(8_400))])
        let endDate = startDate.addingTimeInterval(8_400)
        try await workoutBuilder.updateActivity(uuid: run.uuid, end: endDate)
        try await workoutBuilder.endCollection(at: endDate)
        let workout = try #require(try await workoutBuilder.finishWorkout())
        #expect(workout.workoutActivities.map(\.workoutConfiguration.activityType) == [.swimming, .transition, .cycling, .running])

        // Query for workouts that have a running activity.
        let runningActivityPredicate = HKQuery.predicateForWorkoutActivities(workoutActivityType: .running)
        let workoutPredicate = HKQuery.predicateForWorkouts(activityPredicate: runningActivityPredicate)
        let found = try await HKSampleQueryDescriptor(predicates: [.workout(workoutPredicate)], sortDescriptors: []).result(for: store)
        let triathlon = try #require(found.first)
        #expect(found.count == 1 && triathlon.uuid == workout.uuid)
        let activities = triathlon.workoutActivities
        #expect(activities.map(\.uuid) == [swim.uuid, activities[1].uuid, bike.uuid, run.uuid])
        let readRun = activities[3]
        #expect(readRun.endDate == endDate && readRun.duration == 2_400)
        #expect(readRun.metadata?["Shoes"] as? String == "Racing flats")
        #expect(readRun.statistics(for: HKQuantityType(.distanceWalkingRunning))?.sumQuantity()?.doubleValue(for: .meter()) == 10_000)
        #expect(readRun.statistics(for: HKQuantityType(.distanceCycling)) == nil)
        #expect(activities[2].statistics(for: HKQuantityType(.distanceCycling))?.sumQuantity()?.doubleValue(for: .meter()) == 40_000)
        #expect(activities[0].workoutConfiguration.swimmingLocationType == .openWater)
        #expect(activities[2].metadata?["Wheel"] as? String == "Disc")
        #expect(triathlon.duration == 8_400)

        // Workouts whose bike leg was at least 30 km, and none with a run over an hour.
        let longRide = HKQuery.predicateForWorkoutActivities(operatorType: .greaterThanOrEqualTo, quantityType: HKQuantityType(.distanceCycling),
                                                             sumQuantity: HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: 30))
        #expect(try await HKSampleQueryDescriptor(predicates: [.workout(HKQuery.predicateForWorkouts(activityPredicate: longRide))],
                                                  sortDescriptors: []).result(for: store).count == 1)
        let longRun = NSCompoundPredicate(andPredicateWithSubpredicates: [
            runningActivityPredicate, HKQuery.predicateForWorkoutActivities(operatorType: .greaterThan, duration: 3_600)])
        #expect(try await HKSampleQueryDescriptor(predicates: [.workout(HKQuery.predicateForWorkouts(activityPredicate: longRun))],
                                                  sortDescriptors: []).result(for: store).isEmpty)
        let total = HKQuery.predicateForWorkouts(operatorType: .greaterThan, quantityType: HKQuantityType(.distanceWalkingRunning),
                                                 sumQuantity: HKQuantity(unit: .meter(), doubleValue: 9_000))
        #expect(try await HKSampleQueryDescriptor(predicates: [.workout(total)], sortDescriptors: []).result(for: store).count == 1)
    }
}
