import Foundation
import OpenHealthKit
import Testing

/// Apple's code for state of mind (WWDC24 "Explore wellbeing APIs in HealthKit"), the scored
/// assessments, category value predicates and the iOS 15.4 query descriptors (their
/// documentation pages' snippets), compiled against `import OpenHealthKit` with only the import
/// changed (and the values the snippets leave to the app filled in).
@Suite("HealthKit mind, assessment and descriptor code, ported by changing the import", .timeLimit(.minutes(10)))
struct PortedMindAndDescriptorCodeTests {
    private func makeStore() -> (HKHealthStore, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ported-mind-\(UUID().uuidString)")
        let store = HKHealthStore(configuration: .init(location: .file(folder.appendingPathComponent("health.sqlite")),
                                                       key: .keyFile(folder.appendingPathComponent("health.key"))))
        return (store, folder)
    }

    @Test("WWDC24: save a state of mind, then average the valence of those associated with some facets of life")
    func stateOfMindSession() async throws {
        let (healthStore, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stateOfMindType = HKObjectType.stateOfMindType()
        try await healthStore.requestAuthorization(toShare: [stateOfMindType], read: [stateOfMindType])

        // Saving, as the session writes it.
        let date = Date()
        let kind: HKStateOfMind.Kind = .momentaryEmotion
        let valence: Double = 0.6
        let label: HKStateOfMind.Label = .happy
        let association: HKStateOfMind.Association = .community
        let stateOfMind = HKStateOfMind(date: date, kind: kind, valence: valence, labels: [label], associations: [association])
        try await healthStore.save(stateOfMind)
        try await healthStore.save(HKStateOfMind(date: date, kind: .dailyMood, valence: -0.2, labels: [.stressed], associations: [.work]))
        try await healthStore.save(HKStateOfMind(date: date, kind: .dailyMood, valence: -1.0, labels: [.sad], associations: [.health]))

        // Reading, as the session writes it.
        let dateInterval = DateInterval(start: date.addingTimeInterval(-3600), end: date.addingTimeInterval(3600))
        let associations: [HKStateOfMind.Association] = [.community, .work]
        let datePredicate = HKQuery.predicateForSamples(withStart: dateInterval.start, end: dateInterval.end)
        let associationsPredicate = NSCompoundPredicate(orPredicateWithSubpredicates: associations.map {
            HKQuery.predicateForStatesOfMind(with: $0)
        })
        let compoundPredicate = NSCompoundPredicate(andPredicateWithSubpredicates: [datePredicate, associationsPredicate])
        let stateOfMindPredicate = HKSamplePredicate.stateOfMind(compoundPredicate)
        let descriptor = HKSampleQueryDescriptor(predicates: [stateOfMindPredicate], sortDescriptors: [])
        var results: [HKStateOfMind] = []
        do {
            results = try await descriptor.result(for: healthStore)
        } catch {
            Issue.record(error)
        }
        // Adjust each valence value to be between 0.0 and 2.0.
        let adjustedValenceResults = results.map { $0.valence + 1.0 }
        let totalAdjustedValence = adjustedValenceResults.reduce(0.0, +)
        let averageAdjustedValence = totalAdjustedValence / Double(results.count)
        #expect(results.count == 2)
        #expect(abs(averageAdjustedValence - 1.2) < 1e-12)
        #expect(results.allSatisfy { $0.valenceClassification != .veryUnpleasant })
    }

    @Test("GAD-7 and PHQ-9 results saved and read with the Swift descriptors")
    func assessments() async throws {
        let (healthStore, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gad7Type = HKScoredAssessmentType(.GAD7)
        let phq9Type = HKScoredAssessmentType(.PHQ9)
        try await healthStore.requestAuthorization(toShare: [gad7Type, phq9Type], read: [gad7Type, phq9Type])
        let gad7 = HKGAD7Assessment(date: Date(), answers: [.severalDays, .severalDays, .moreThanHalfTheDays, .notAtAll,
                                                            .nearlyEveryDay, .severalDays, .notAtAll])
        let phq9 = HKPHQ9Assessment(date: Date(), answers: [.notAtAll, .severalDays, .notAtAll, .notAtAll, .notAtAll, .notAtAll,
                                                            .notAtAll, .notAtAll, .preferNotToAnswer])
        try await healthStore.save([gad7, phq9])
        let query = HKSampleQueryDescriptor(predicates: [.sample(type: gad7Type), .sample(type: phq9Type)],
                                            sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)])
        let assessments = try await query.result(for: healthStore).compactMap { $0 as? HKScoredAssessment }
        #expect(assessments.count == 2)
        let gad = try #require(try await HKSampleQueryDescriptor(predicates: [.gad7Assessment()], sortDescriptors: [])
            .result(for: healthStore).first)
        let phq = try #require(try await HKSampleQueryDescriptor(predicates: [.phq9Assessment()], sortDescriptors: [])
            .result(for: healthStore).first)
        #expect(gad.score == 8 && gad.risk == .mild)
        #expect(phq.score == 1 && phq.risk == .noneToMinimal && phq.answers.last == .preferNotToAnswer)
    }

    @Test("HKCategoryValuePredicateProviding: deep sleep and all asleep values, as the iOS 16 sleep stages code reads them")
    func sleepStages() async throws {
        let (healthStore, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sleepType = HKCategoryType(.sleepAnalysis)
        try await healthStore.requestAuthorization(toShare: [sleepType], read: [sleepType])
        let startDate = Date().addingTimeInterval(-8 * 3600)
        let stages: [HKCategoryValueSleepAnalysis] = [.inBed, .asleepCore, .asleepDeep, .asleepREM, .awake]
        try await healthStore.save(stages.enumerated().map { index, stage in
            HKCategorySample(type: sleepType, value: stage.rawValue, start: startDate.addingTimeInterval(Double(index) * 1800),
                             end: startDate.addingTimeInterval(Double(index + 1) * 1800))
        })
        let deepSleep = HKCategoryValueSleepAnalysis.predicateForSamples(.equalTo, value: .asleepDeep)
        let asleep = HKCategoryValueSleepAnalysis.predicateForSamples(equalTo: HKCategoryValueSleepAnalysis.allAsleepValues)
        let deep = try await HKSampleQueryDescriptor(predicates: [.categorySample(type: sleepType, predicate: deepSleep)],
                                                     sortDescriptors: []).result(for: healthStore)
        let all = try await HKSampleQueryDescriptor(predicates: [.categorySample(type: sleepType, predicate: asleep)],
                                                    sortDescriptors: [SortDescriptor(\.startDate)]).result(for: healthStore)
        #expect(deep.map(\.value) == [HKCategoryValueSleepAnalysis.asleepDeep.rawValue])
        #expect(all.map(\.value) == [HKCategoryValueSleepAnalysis.asleepCore, .asleepDeep, .asleepREM].map(\.rawValue))
    }

    @Test("HKActivitySummaryQueryDescriptor: today's summary, as its documentation page reads it")
    func activitySummaryDescriptor() async throws {
        let (healthStore, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await healthStore.requestAuthorization(toShare: [], read: [HKObjectType.activitySummaryType()])

        // Get the start and end date components.
        let calendar = Calendar(identifier: .gregorian)

        var startComponents = calendar.dateComponents([.day, .month, .year], from: Date())
        startComponents.hour = 0
        startComponents.minute = 0
        startComponents.second = 0

        var endComponents = startComponents
        endComponents.day = 1 + (endComponents.day ?? 0)

        // Create a predicate for the query.
        let today = HKQuery.predicate(forActivitySummariesBetweenStart: startComponents, end: endComponents)

        // Create the descriptor.
        let activeSummaryDescriptor = HKActivitySummaryQueryDescriptor(predicate: today)

        // Run the query.
        let results = try await activeSummaryDescriptor.result(for: healthStore)
        #expect(results.isEmpty)   // an app saves no summaries; the owner's are read in QueryDescriptorSequenceTests

        var updates = activeSummaryDescriptor.results(for: healthStore).makeAsyncIterator()
        #expect(try await updates.next()?.isEmpty == true)
    }

    @Test("HKWorkoutRouteQueryDescriptor: each location of a route, as its documentation page reads them")
    func workoutRouteDescriptor() async throws {
        let (store, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let routeType = HKSeriesType.workoutRoute()
        try await store.requestAuthorization(toShare: [.workoutType(), routeType], read: [routeType])
        let start = Date().addingTimeInterval(-600)
        let workout = HKWorkout(activityType: .walking, start: start, end: start.addingTimeInterval(300))
        try await store.save(workout)
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData((0..<30).map {
            CLLocation(coordinate: CLLocationCoordinate2D(latitude: 51.5, longitude: -0.12 + Double($0) * 1e-5), altitude: 10,
                       horizontalAccuracy: 5, verticalAccuracy: 5, timestamp: start.addingTimeInterval(Double($0) * 10))
        })
        let myRoute = try await builder.finishRoute(with: workout, metadata: nil)

        // Create the descriptor.
        let routeQueryDescriptor = HKWorkoutRouteQueryDescriptor(myRoute)

        // Get the AsyncSequence that returns individual locations.
        let locations = routeQueryDescriptor.results(for: store)

        // Access each location.
        var count = 0
        for try await location in locations {
            // Do something with each location here.
            #expect(location.coordinate.latitude == 51.5)
            count += 1
        }
        #expect(count == 30)
    }

    @Test("HKSourceQueryDescriptor: the sources of workouts, as its documentation page reads them")
    func sourceDescriptor() async throws {
        let (store, folder) = makeStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await store.requestAuthorization(toShare: [.workoutType()], read: [.workoutType()])
        try await store.save(HKWorkout(activityType: .yoga, start: Date().addingTimeInterval(-900), end: Date()))

        // Create the source descriptor.
        let sourceDescriptor = HKSourceQueryDescriptor(predicate: .workout())

        // Read the source data from the HealthKit store.
        let sources = try await sourceDescriptor.result(for: store)

        var names: [String] = []
        for source in sources {
            // Process the sources here.
            names.append(source.name)
        }
        #expect(names.count == 1)
    }

    @Test("HKVerifiableClinicalRecordQueryDescriptor takes credential types: recordTypes: [.immunization]")
    func verifiableRecordDescriptor() {
        // Calculate the start and end dates.
        var sixMonthsAgo = DateComponents()
        sixMonthsAgo.month = -6

        let end = Date()
        guard let start = Calendar.current.date(byAdding: sixMonthsAgo, to: end) else {
            fatalError("*** Unable to calculate a date using \(end) and \(sixMonthsAgo) ***")
        }

        // Create the predicate.
        let lastSixMonthsPredicate =
        HKQuery.predicateForVerifiableClinicalRecords(withRelevantDateWithin: DateInterval(start: start, end: end))

        // Create the descriptor.
        let healthRecordDescriptor = HKVerifiableClinicalRecordQueryDescriptor(recordTypes: [.immunization, .covid19],
                                                                               sourceTypes: [.smartHealthCard, .euDigitalCOVIDCertificate],
                                                                               predicate: lastSixMonthsPredicate)
        #expect(healthRecordDescriptor.recordTypes == [.immunization, .covid19])
        #expect(healthRecordDescriptor.recordTypes.map(\.rawValue) == ["https://smarthealth.cards#immunization",
                                                                       "https://smarthealth.cards#covid19"])
    }
}
