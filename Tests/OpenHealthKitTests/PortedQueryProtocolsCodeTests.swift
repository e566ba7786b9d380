import Foundation
import OpenHealthKit
import Testing

/// Issue 36 leftovers, written as Apple's documentation and sample apps write them and compiled
/// against `import OpenHealthKit` with only the import changed: descriptors run through
/// `HKAsyncQuery`/`HKAsyncSequenceQuery`, the workout effort descriptor's `results(for:)`, the
/// electrocardiogram key paths, workout events with metadata through the builder and the store,
/// the builder's statistics right after `add(_:completion:)`, and the valence bands' edges.
@Suite("HealthKit query protocols, workout events and builder code, ported by changing the import")
struct PortedQueryProtocolsCodeTests {
    private func makeStore() -> (HKHealthStore, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ported-protocols-\(UUID().uuidString)")
        let store = HKHealthStore(configuration: .init(location: .file(folder.appendingPathComponent("health.sqlite")),
                                                       key: .keyFile(folder.appendingPathComponent("health.key")),
                                                       source: HKSource(name: "Workouts", bundleIdentifier: "org.example.workouts"), role: .owner))
        return (store, folder)
    }

    private static let start = Date(timeIntervalSinceReferenceDate: 790_000_000)

    // Generic helpers as an app's data layer writes them over HealthKit's protocols.
    private func snapshot<Query: HKAsyncQuery>(_ query: Query, from store: HKHealthStore) async throws -> Query.Output {
        try await query.result(for: store)
    }

    private func first<Query: HKAsyncSequenceQuery>(_ query: Query, from store: HKHealthStore) async throws -> Query.Sequence.Element? {
        var iterator = query.results(for: store).makeAsyncIterator()
        return try await iterator.next()
    }

    @Test("Every descriptor with result(for:) is an HKAsyncQuery, every one with results(for:) an HKAsyncSequenceQuery")
    func descriptorsAdoptTheProtocols() async throws {
        let (store, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let steps = HKQuantityType(.stepCount)
        var samples: [HKQuantitySample] = []
        for index in 0..<3 {
            let offset = Double(index) * 600
            let start = Self.start.addingTimeInterval(offset)
            let quantity = HKQuantity(unit: .count(), doubleValue: Double(100 * (index + 1)))
            samples.append(HKQuantitySample(type: steps, quantity: quantity, start: start, end: start.addingTimeInterval(300)))
        }
        try await store.save(samples)

        let sampleQuery = HKSampleQueryDescriptor(predicates: [.quantitySample(type: steps)], sortDescriptors: [SortDescriptor(\.startDate)])
        #expect(try await snapshot(sampleQuery, from: store).map { $0.quantity.doubleValue(for: .count()) } == [100, 200, 300])

        let sum = HKStatisticsQueryDescriptor(predicate: .quantitySample(type: steps), options: .cumulativeSum)
        #expect(try await snapshot(sum, from: store)?.sumQuantity()?.doubleValue(for: .count()) == 600)

        let sources = HKSourceQueryDescriptor(predicate: .quantitySample(type: steps))
        #expect(try await snapshot(sources, from: store).map(\.bundleIdentifier) == ["org.example.workouts"])

        let anchored = HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: steps)], anchor: nil)
        #expect(try await snapshot(anchored, from: store).addedSamples.count == 3)
        let firstDelivery = try #require(try await first(anchored, from: store))
        #expect(firstDelivery.addedSamples.count == 3)

        let collection = HKStatisticsCollectionQueryDescriptor(predicate: .quantitySample(type: steps), options: .cumulativeSum,
                                                               anchorDate: Self.start, intervalComponents: DateComponents(hour: 1))
        let firstCollection = try #require(try await first(collection, from: store))
        #expect(firstCollection.statisticsCollection.statistics(for: Self.start)?.sumQuantity()?.doubleValue(for: .count()) == 600)
        #expect(try await snapshot(collection, from: store).statistics().count == 1)
    }

    @Test("HKWorkoutEffortRelationshipQueryDescriptor.results(for:) delivers the relationships, then a later one with its anchor")
    func effortResultsSequence() async throws {
        let (store, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = HKWorkout(activityType: .running, start: Self.start, end: Self.start.addingTimeInterval(1_800))
        let ride = HKWorkout(activityType: .cycling, start: Self.start.addingTimeInterval(3_600), end: Self.start.addingTimeInterval(5_400))
        func effort(_ value: Double, at date: Date) -> HKQuantitySample {
            HKQuantitySample(type: HKQuantityType(.workoutEffortScore), quantity: HKQuantity(unit: .appleEffortScore(), doubleValue: value),
                             start: date, end: date)
        }
        let runEffort = effort(6, at: run.endDate)
        let rideEffort = effort(8, at: ride.endDate)
        try await store.save([run, ride, runEffort, rideEffort])
        try await store.relateWorkoutEffortSample(runEffort, with: run, activity: nil)

        let descriptor = HKWorkoutEffortRelationshipQueryDescriptor(predicate: nil, anchor: nil, option: .default)
        var updates = descriptor.results(for: store).makeAsyncIterator()
        let initial = try #require(try await updates.next())
        #expect(initial.relationships.map(\.workout.uuid) == [run.uuid])

        try await store.relateWorkoutEffortSample(rideEffort, with: ride, activity: nil)
        let update = try #require(try await updates.next())
        #expect(update.relationships.map(\.workout.uuid) == [ride.uuid])
        #expect(update.relationships.first?.samples?.map(\.uuid) == [rideEffort.uuid])
        // The anchor it carries reads nothing newer.
        let after = try await HKWorkoutEffortRelationshipQueryDescriptor(predicate: nil, anchor: update.newAnchor, option: .default)
            .result(for: store)
        #expect(after.relationships.isEmpty)
    }

    @Test("The electrocardiogram key paths are Apple's constants and name what the documented predicates filter")
    func electrocardiogramKeyPaths() async throws {
        let (owner, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        // HealthKit's values, as its framework exports them.
        #expect(HKPredicateKeyPathAverageHeartRate == "ecg_average_heart_rate")
        #expect(HKPredicateKeyPathECGClassification == "ecg_public_classification")
        #expect(HKPredicateKeyPathECGSymptomsStatus == "ecg_symptoms_status")
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let recordings: [(HKElectrocardiogram.Classification, HKElectrocardiogram.SymptomsStatus, Double)] =
            [(.sinusRhythm, .none, 62), (.atrialFibrillation, .present, 118), (.sinusRhythm, .present, 75)]
        for (index, (classification, symptoms, rate)) in recordings.enumerated() {
            let start = Self.start.addingTimeInterval(Double(index) * 60)
            try await owner.save(try HKElectrocardiogram(start: start, end: start.addingTimeInterval(30), classification: classification,
                                                         symptomsStatus: symptoms, averageHeartRate: HKQuantity(unit: bpm, doubleValue: rate),
                                                         samplingFrequency: HKQuantity(unit: .hertz(), doubleValue: 512),
                                                         microvolts: [.appleWatchSimilarToLeadI: [1, 2, 3]], device: nil, metadata: nil))
        }
        // classification == sinusRhythm AND symptomsStatus == present, as the key paths describe.
        let predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
            HKQuery.predicateForElectrocardiograms(classification: .sinusRhythm),
            HKQuery.predicateForElectrocardiograms(symptomsStatus: .present),
        ])
        let matches = try await HKSampleQueryDescriptor(predicates: [.electrocardiogram(predicate)], sortDescriptors: []).result(for: owner)
        #expect(matches.count == 1)
        #expect(matches.first?.averageHeartRate?.doubleValue(for: bpm) == 75)
        let notSinus = try await HKSampleQueryDescriptor(
            predicates: [.electrocardiogram(NSCompoundPredicate(notPredicateWithSubpredicate:
                HKQuery.predicateForElectrocardiograms(classification: .sinusRhythm)))],
            sortDescriptors: []).result(for: owner)
        #expect(notSinus.map(\.classification) == [.atrialFibrillation])
    }

    @Test("Workout events keep their metadata through HKWorkoutBuilder, the store's sample and anchored queries, and HKWorkout(…workoutEvents:)")
    func workoutEventMetadata() async throws {
        let (store, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .swimming
        configuration.swimmingLocationType = .pool
        configuration.lapLength = HKQuantity(unit: .meter(), doubleValue: 25)
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: Self.start)
        // A lap with its stroke style and a segment, as a swimming app records them.
        let lap = HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: Self.start, duration: 40),
                                 metadata: [HKMetadataKeySwimmingStrokeStyle: HKSwimmingStrokeStyle.freestyle.rawValue])
        let segment = HKWorkoutEvent(type: .segment, dateInterval: DateInterval(start: Self.start, duration: 600),
                                     metadata: ["Segment": "warm-up", "Target": HKQuantity(unit: .meter(), doubleValue: 400)])
        let marker = HKWorkoutEvent(type: .marker, dateInterval: DateInterval(start: Self.start.addingTimeInterval(300), duration: 0), metadata: nil)
        let added: Bool = await withCheckedContinuation { done in
            builder.addWorkoutEvents([lap, segment, marker]) { success, error in done.resume(returning: success && error == nil) }
        }
        #expect(added)
        // Metadata HealthKit refuses is refused when the event is added.
        await #expect(throws: HKError.self) {
            try await builder.addWorkoutEvents([HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: Self.start, duration: 1),
                                                               metadata: ["Bad": [1, 2]])])
        }
        try await builder.endCollection(at: Self.start.addingTimeInterval(1_200))
        let workout = try #require(try await builder.finishWorkout())

        func check(_ events: [HKWorkoutEvent]?) {
            let byType = Dictionary((events ?? []).map { ($0.type, $0) }, uniquingKeysWith: { first, _ in first })
            #expect(events?.count == 3)
            #expect(byType[.lap]?.metadata?[HKMetadataKeySwimmingStrokeStyle] as? Int == HKSwimmingStrokeStyle.freestyle.rawValue)
            #expect(byType[.segment]?.metadata?["Segment"] as? String == "warm-up")
            #expect((byType[.segment]?.metadata?["Target"] as? HKQuantity)?.doubleValue(for: .meter()) == 400)
            #expect(byType[.marker]?.metadata == nil)
            #expect(byType[.segment]?.dateInterval.duration == 600)
        }
        check(workout.workoutEvents)
        let read = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store)
        check(read.first?.workoutEvents)
        let anchored = try await HKAnchoredObjectQueryDescriptor(predicates: [.workout()], anchor: nil).result(for: store)
        check(anchored.addedSamples.first?.workoutEvents)

        // The older initializer with events, saved directly.
        let pause = HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: Self.start.addingTimeInterval(7_300), duration: 0),
                                   metadata: ["Reason": "traffic light"])
        let resume = HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: Self.start.addingTimeInterval(7_360), duration: 0),
                                    metadata: nil)
        let walk = HKWorkout(activityType: .walking, start: Self.start.addingTimeInterval(7_200), end: Self.start.addingTimeInterval(9_000),
                             workoutEvents: [pause, resume], totalEnergyBurned: nil, totalDistance: nil, metadata: nil)
        try await store.save(walk)
        let walks = try await HKSampleQueryDescriptor(predicates: [.workout(HKQuery.predicateForWorkouts(with: .walking))], sortDescriptors: [])
            .result(for: store)
        #expect(walks.first?.workoutEvents?.first { $0.type == .pause }?.metadata?["Reason"] as? String == "traffic light")
        #expect(walks.first?.workoutEvents?.first { $0.type == .resume }?.metadata == nil)
    }

    @Test("HKWorkoutBuilder.statistics(for:) reflects the samples as soon as add(_:completion:) completes, before the workout is finished")
    func builderStatisticsAfterAdd() async throws {
        let (store, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: Self.start)
        let energy = HKQuantityType(.activeEnergyBurned)
        let heartRate = HKQuantityType(.heartRate)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        #expect(builder.statistics(for: energy) == nil)

        // As a workout app's delegate reads it: inside the add completion.
        let first = [HKQuantitySample(type: energy, quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 12),
                                      start: Self.start, end: Self.start.addingTimeInterval(60)),
                     HKQuantitySample(type: heartRate, quantity: HKQuantity(unit: bpm, doubleValue: 120),
                                      start: Self.start.addingTimeInterval(30), end: Self.start.addingTimeInterval(30))]
        let inCompletion: (Double?, Double?) = await withCheckedContinuation { done in
            builder.add(first) { success, _ in
                let kilocalories = success ? builder.statistics(for: energy)?.sumQuantity()?.doubleValue(for: .kilocalorie()) : nil
                let latest = builder.statistics(for: heartRate)?.mostRecentQuantity()?.doubleValue(for: bpm)
                done.resume(returning: (kilocalories, latest))
            }
        }
        #expect(inCompletion.0 == 12)
        #expect(inCompletion.1 == 120)

        try await builder.addSamples([HKQuantitySample(type: energy, quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 8),
                                                       start: Self.start.addingTimeInterval(60), end: Self.start.addingTimeInterval(120)),
                                      HKQuantitySample(type: heartRate, quantity: HKQuantity(unit: bpm, doubleValue: 140),
                                                       start: Self.start.addingTimeInterval(90), end: Self.start.addingTimeInterval(90))])
        #expect(builder.statistics(for: energy)?.sumQuantity()?.doubleValue(for: .kilocalorie()) == 20)
        let rate = try #require(builder.statistics(for: heartRate))
        let average = try #require(rate.averageQuantity()?.doubleValue(for: bpm))
        #expect(abs(average - 130) < 1e-9)
        #expect(rate.maximumQuantity()?.doubleValue(for: bpm) == 140)
        #expect(rate.mostRecentQuantity()?.doubleValue(for: bpm) == 140)
        #expect(builder.allStatistics.count == 2)
    }

    @Test("Valence classification at each band edge: a boundary belongs to the band nearer neutral, the next value up to the next band")
    func valenceBandEdges() {
        typealias C = HKStateOfMind.ValenceClassification
        let width = 2.0 / 7.0
        let edges = [width / 2, width * 1.5, width * 2.5]
        let bands: [(C, C)] = [(.neutral, .slightlyPleasant), (.slightlyPleasant, .pleasant), (.pleasant, .veryPleasant)]
        let mirrored: [(C, C)] = [(.neutral, .slightlyUnpleasant), (.slightlyUnpleasant, .unpleasant), (.unpleasant, .veryUnpleasant)]
        for (edge, (band, next)) in zip(edges, bands) {
            #expect(C(valence: edge) == band, "valence \(edge)")
            #expect(C(valence: edge.nextUp) == next, "valence \(edge.nextUp)")
        }
        for (edge, (band, next)) in zip(edges, mirrored) {
            #expect(C(valence: -edge) == band, "valence \(-edge)")
            #expect(C(valence: (-edge).nextDown) == next, "valence \((-edge).nextDown)")
        }
        #expect(C(valence: 1) == .veryPleasant && C(valence: -1) == .veryUnpleasant)
        #expect(C(valence: 1.0.nextUp) == nil && C(valence: (-1.0).nextDown) == nil)
        let mood = HKStateOfMind(date: Self.start, kind: .dailyMood, valence: width * 1.5, labels: [.content], associations: [.family])
        #expect(mood.valenceClassification == .slightlyPleasant)
    }
}
