@testable import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing

@Suite("Apple Health export: multisport workouts' WorkoutActivity elements", .timeLimit(.minutes(5)))
struct WorkoutActivityImportTests {
    /// A triathlon as iOS 16 and later export it: the workout's statistics, then one
    /// `WorkoutActivity` per leg with its own statistics and metadata (no activity type).
    static func export() -> String {
        var generator = AppleHealthExportGenerator()
        generator.raw("""
         <Workout workoutActivityType="HKWorkoutActivityTypeSwimBikeRun" duration="140" durationUnit="min" sourceName="Jane’s Apple Watch" \
        sourceVersion="9.0" creationDate="2022-09-18 10:21:00 +0100" startDate="2022-09-18 08:00:00 +0100" endDate="2022-09-18 10:20:00 +0100">
          <MetadataEntry key="HKIndoorWorkout" value="0"/>
          <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2022-09-18 08:00:00 +0100" endDate="2022-09-18 10:20:00 +0100" \
        sum="1650" unit="kcal"/>
          <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2022-09-18 08:00:00 +0100" endDate="2022-09-18 10:20:00 +0100" average="148" \
        minimum="96" maximum="181" unit="count/min"/>
          <WorkoutActivity uuid="6C1D1B3E-3D5C-4C7E-9E55-0F4B7B2E8A11" startDate="2022-09-18 08:00:00 +0100" endDate="2022-09-18 08:30:00 +0100" duration="30" \
        durationUnit="min">
           <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceSwimming" startDate="2022-09-18 08:00:00 +0100" endDate="2022-09-18 08:30:00 +0100" \
        sum="1500" unit="m"/>
           <MetadataEntry key="HKSwimmingLocationType" value="2"/>
          </WorkoutActivity>
          <WorkoutActivity uuid="0A7E2F58-54B3-4D2B-8E55-1C2D3E4F5A62" startDate="2022-09-18 08:30:00 +0100" endDate="2022-09-18 08:33:00 +0100" duration="3" \
        durationUnit="min">
          </WorkoutActivity>
          <WorkoutActivity uuid="9B8C7D6E-5F4A-4B3C-8D2E-1F0A9B8C7D63" startDate="2022-09-18 08:33:00 +0100" endDate="2022-09-18 09:40:00 +0100" duration="67" \
        durationUnit="min">
           <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceCycling" startDate="2022-09-18 08:33:00 +0100" endDate="2022-09-18 09:40:00 +0100" \
        sum="40" unit="km"/>
          </WorkoutActivity>
          <WorkoutActivity uuid="1E2D3C4B-5A69-4788-9A0B-C1D2E3F4A564" startDate="2022-09-18 09:40:00 +0100" endDate="2022-09-18 10:20:00 +0100" duration="40" \
        durationUnit="min">
           <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2022-09-18 09:40:00 +0100" endDate="2022-09-18 10:20:00 +0100" \
        sum="10" unit="km"/>
           <MetadataEntry key="Shoes" value="Racing flats"/>
          </WorkoutActivity>
         </Workout>

        """)
        return generator.document()
    }

    @Test("The legs become the workout's activities, with their UUIDs, types, durations and statistics; nothing is skipped; a second import stores nothing new")
    func importsActivities() async throws {
        let url = try AppleHealthImporterTests.write(Self.export())
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        let report = try await AppleHealthImporter().importExport(at: url, into: store)
        // (The generator's Me element carries a characteristic the store does not keep.)
        #expect(!report.skipped.keys.contains { $0.contains("Workout") }, "\(report.skipped)")
        let workouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store)
        let workout = try #require(workouts.first)
        #expect(workouts.count == 1 && workout.workoutActivityType == .swimBikeRun)
        let activities = workout.workoutActivities
        #expect(activities.map(\.workoutConfiguration.activityType) == [.swimming, .transition, .cycling, .running])
        #expect(activities.first?.uuid == UUID(uuidString: "6C1D1B3E-3D5C-4C7E-9E55-0F4B7B2E8A11"))
        #expect(activities.first?.workoutConfiguration.swimmingLocationType == .openWater)
        #expect(activities.map(\.duration) == [1_800, 180, 4_020, 2_400])
        #expect(activities[2].statistics(for: HKQuantityType(.distanceCycling))?.sumQuantity()?.doubleValue(for: .meter()) == 40_000)
        #expect(activities[3].metadata?["Shoes"] as? String == "Racing flats")
        #expect(workout.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(for: .kilocalorie()) == 1_650)
        let heartRate = try #require(workout.statistics(for: HKQuantityType(.heartRate)))
        #expect(heartRate.maximumQuantity()?.doubleValue(for: HKUnit.count().unitDivided(by: .minute())) == 181)

        let running = HKQuery.predicateForWorkouts(activityPredicate: HKQuery.predicateForWorkoutActivities(workoutActivityType: .running))
        #expect(try await HKSampleQueryDescriptor(predicates: [.workout(running)], sortDescriptors: []).result(for: store).count == 1)

        _ = try await AppleHealthImporter().importExport(at: url, into: store)
        let again = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store)
        #expect(again.map(\.uuid) == [workout.uuid])
        #expect(again.first?.workoutActivities.map(\.uuid) == activities.map(\.uuid))
    }

    @Test("A WorkoutActivity without a UUID is skipped with its reason; the workout is kept")
    func unreadableActivity() async throws {
        var generator = AppleHealthExportGenerator()
        generator.raw("""
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="10" durationUnit="min" sourceName="Jane’s Apple Watch" \
        startDate="2022-09-18 08:00:00 +0100" endDate="2022-09-18 08:10:00 +0100">
          <WorkoutActivity startDate="2022-09-18 08:00:00 +0100" endDate="2022-09-18 08:10:00 +0100"/>
         </Workout>

        """)
        let url = try AppleHealthImporterTests.write(generator.document())
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        let report = try await AppleHealthImporter().importExport(at: url, into: store)
        #expect(report.skipped.keys.contains { $0.contains("WorkoutActivity without a UUID") }, "\(report.skipped)")
        let workout = try #require(try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store).first)
        #expect(workout.workoutActivities.map(\.workoutConfiguration.activityType) == [.running])
    }
}
