import Foundation
import OpenHealthKit
import Testing

/// Issue 36's declaration audit: the newer HealthKit API called exactly as Apple's documentation
/// pages declare it (argument labels, optionality, completion-handler parameter order, async
/// forms, default arguments, settable properties, enum raw values), the way an app writes it.
/// Every snippet must compile unchanged against `import OpenHealthKit`; the assertions check that
/// each call does what Apple documents. `import OpenHealthKit` is not `@testable`: only public API.
@Suite("Issue 36: declarations as Apple's pages give them", .timeLimit(.minutes(10)))
struct DeclarationAuditTests {
    private let start = Date(timeIntervalSince1970: 1_763_000_000)

    /// Turns a `(Bool, (any Error)?) -> Void` completion into an async result.
    private func completion(_ call: (@escaping @Sendable (Bool, (any Error)?) -> Void) -> Void) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            call { success, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
            }
        }
    }

    @Test("HKWorkoutConfiguration (get set), HKWorkoutBuilder's completion-handler forms, HKWorkout.statistics(for:)/allStatistics")
    func workoutBuilderCompletionForms() async throws {
        let folder = TemporaryFolder()
        let healthStore = TestStores.owner(folder)
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .swimming
        configuration.locationType = .indoor
        configuration.swimmingLocationType = .pool
        configuration.lapLength = HKQuantity(unit: .meter(), doubleValue: 25)
        #expect(HKWorkoutSessionLocationType.unknown.rawValue == 1 && HKWorkoutSessionLocationType.outdoor.rawValue == 3)

        let builder = HKWorkoutBuilder(healthStore: healthStore, configuration: configuration, device: nil)
        // The builder keeps a copy (Apple's @NSCopying): changing the caller's object later leaks nothing.
        configuration.lapLength = HKQuantity(unit: .meter(), doubleValue: 50)
        #expect(builder.workoutConfiguration.lapLength == HKQuantity(unit: .meter(), doubleValue: 25))
        #expect(builder.startDate == nil && builder.endDate == nil && builder.device == nil)

        let done1 = try await completion { builder.beginCollection(withStart: start, completion: $0) }
        #expect(done1)
        let distance = HKQuantityType(.distanceSwimming)
        let lengths: [HKSample] = (0..<4).map { lap in
            let lapStart = start.addingTimeInterval(Double(lap) * 60)
            return HKQuantitySample(type: distance, quantity: HKQuantity(unit: .meter(), doubleValue: 25), start: lapStart,
                                    end: lapStart.addingTimeInterval(50))
        }
        let done2 = try await completion { builder.add(lengths, completion: $0) }
        #expect(done2)
        let pause = HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: start.addingTimeInterval(300), duration: 0),
                                   metadata: nil)
        let resume = HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: start.addingTimeInterval(360), duration: 0),
                                    metadata: nil)
        let done3 = try await completion { builder.addWorkoutEvents([pause, resume], completion: $0) }
        #expect(done3)
        let done4 = try await completion { builder.addMetadata([HKMetadataKeyIndoorWorkout: true], completion: $0) }
        #expect(done4)
        let done5 = try await completion { builder.endCollection(withEnd: start.addingTimeInterval(600), completion: $0) }
        #expect(done5)

        // elapsedTime(at:) -> TimeInterval: the pause's minute does not count.
        let elapsed: TimeInterval = builder.elapsedTime(at: start.addingTimeInterval(600))
        #expect(elapsed == 540)
        let building: HKStatistics? = builder.statistics(for: distance)
        #expect(building?.sumQuantity()?.doubleValue(for: .meter()) == 100)

        let workout: HKWorkout? = try await withCheckedThrowingContinuation { continuation in
            builder.finishWorkout { workout, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: workout) }
            }
        }
        let finished = try #require(workout)
        #expect(finished.duration == 540)
        #expect(finished.workoutActivityType == .swimming)
        let statistics: HKStatistics? = finished.statistics(for: distance)
        #expect(statistics?.sumQuantity() == HKQuantity(unit: .meter(), doubleValue: 100))
        let all: [HKQuantityType: HKStatistics] = finished.allStatistics
        #expect(all[distance] != nil)
        #expect(finished.workoutEvents?.map(\.type) == [.pause, .resume])
    }

    @Test("HKWorkoutActivity(workoutConfiguration:start:end:metadata:) with end nil, updateActivity(uuid:end:) and (uuid:adding:)")
    func workoutActivitiesAsync() async throws {
        let folder = TemporaryFolder()
        let healthStore = TestStores.owner(folder)
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        let builder = HKWorkoutBuilder(healthStore: healthStore, configuration: configuration, device: nil)
        try await builder.beginCollection(at: start)
        let activity = HKWorkoutActivity(workoutConfiguration: configuration, start: start, end: nil, metadata: nil)
        #expect(activity.endDate == nil && activity.duration == 0)
        try await builder.addWorkoutActivity(activity)
        let updated = try await completion {
            builder.updateActivity(uuid: activity.uuid, adding: ["lap": "first"], completion: $0)
        }
        #expect(updated)
        try await builder.updateActivity(uuid: activity.uuid, end: start.addingTimeInterval(1200))
        try await builder.addMetadata(["route": "river"])
        try await builder.endCollection(at: start.addingTimeInterval(1200))
        #expect(builder.workoutActivities.count == 1)
        let workout = try #require(try await builder.finishWorkout())
        let activities: [HKWorkoutActivity] = workout.workoutActivities
        #expect(activities.count == 1)
        #expect(activities.first?.uuid == activity.uuid)
        #expect(activities.first?.endDate == start.addingTimeInterval(1200))
        #expect(activities.first?.duration == 1200)
        #expect(activities.first?.metadata?["lap"] as? String == "first")
        #expect(activities.first?.workoutConfiguration.activityType == .running)

        let runs = HKQuery.predicateForWorkouts(activityPredicate: HKQuery.predicateForWorkoutActivities(workoutActivityType: .running))
        let found = try await HKSampleQueryDescriptor(predicates: [.workout(runs)], sortDescriptors: []).result(for: healthStore)
        #expect(found.map(\.uuid) == [workout.uuid])
    }

    @Test("HKQuantitySeriesSampleBuilder insert(_:at:)/insert(_:for:) throws; finishSeries(metadata:endDate:completion:); series queries")
    func quantitySeries() async throws {
        let folder = TemporaryFolder()
        let healthStore = TestStores.owner(folder)
        let stepType = HKQuantityType(.stepCount)
        let seriesBuilder = HKQuantitySeriesSampleBuilder(healthStore: healthStore, quantityType: stepType, startDate: start, device: nil)
        try seriesBuilder.insert(HKQuantity(unit: .count(), doubleValue: 10), at: start)
        try seriesBuilder.insert(HKQuantity(unit: .count(), doubleValue: 20), for: DateInterval(start: start.addingTimeInterval(10), duration: 10))
        let samples: [HKQuantitySample]? = try await withCheckedThrowingContinuation { continuation in
            seriesBuilder.finishSeries(metadata: nil, endDate: nil) { samples, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: samples) }
            }
        }
        let sample = try #require(samples?.first)
        #expect(sample.count == 2)
        #expect(sample.quantity.doubleValue(for: .count()) == 30)

        // The iOS 13 query: (query, quantity?, dateInterval?, quantitySample?, done, error?), includeSample get set.
        let (stream, continuation) = AsyncStream.makeStream(of: (Double, Bool).self)
        let query = HKQuantitySeriesSampleQuery(quantityType: stepType, predicate: nil) { _, quantity, dateInterval, quantitySample, done, error in
            if let quantity, dateInterval != nil { continuation.yield((quantity.doubleValue(for: .count()), quantitySample != nil)) }
            if done || error != nil { continuation.finish() }
        }
        query.includeSample = true
        query.orderByQuantitySampleStartDate = true
        healthStore.execute(query)
        var quantities: [(Double, Bool)] = []
        for await entry in stream { quantities.append(entry) }
        #expect(quantities.map(\.0) == [10, 20])
        #expect(quantities.allSatisfy { $0.1 })

        // The iOS 15.4 descriptor: Options default [], Result.sample nil unless .includeSample.
        let descriptor = HKQuantitySeriesSampleQueryDescriptor(predicate: .quantitySample(type: stepType))
        var entries: [HKQuantitySeriesSampleQueryDescriptor.Result] = []
        for try await result in descriptor.results(for: healthStore) { entries.append(result) }
        #expect(entries.map { $0.quantity.doubleValue(for: .count()) } == [10, 20])
        #expect(entries.allSatisfy { $0.sample == nil })
        #expect(entries.last?.dateInterval.duration == 10)
    }

    @Test("HKHeartbeatSeriesBuilder: maximumCount, addHeartbeatWithTimeInterval(sinceSeriesStartDate:precededByGap:completion:), queries")
    func heartbeatSeries() async throws {
        let folder = TemporaryFolder()
        let healthStore = TestStores.owner(folder)
        #expect(HKHeartbeatSeriesBuilder.maximumCount > 0)
        let builder = HKHeartbeatSeriesBuilder(healthStore: healthStore, device: nil, start: start)
        let added = try await completion {
            builder.addHeartbeatWithTimeInterval(sinceSeriesStartDate: 0.8, precededByGap: false, completion: $0)
        }
        #expect(added)
        try await builder.addHeartbeat(at: 2.4, precededByGap: true)
        let done6 = try await completion { builder.addMetadata(["position": "seated"], completion: $0) }
        #expect(done6)
        let series: HKHeartbeatSeriesSample = try await builder.finishSeries()
        #expect(series.count == 2)

        let (stream, continuation) = AsyncStream.makeStream(of: (TimeInterval, Bool).self)
        let query = HKHeartbeatSeriesQuery(heartbeatSeries: series) { _, timeSinceSeriesStart, precededByGap, done, error in
            if error == nil { continuation.yield((timeSinceSeriesStart, precededByGap)) }
            if done || error != nil { continuation.finish() }
        }
        healthStore.execute(query)
        var beats: [(TimeInterval, Bool)] = []
        for await beat in stream { beats.append(beat) }
        #expect(beats.map(\.0) == [0.8, 2.4])
        #expect(beats.map(\.1) == [false, true])

        var heartbeats: [HKHeartbeatSeriesQueryDescriptor.Heartbeat] = []
        for try await heartbeat in HKHeartbeatSeriesQueryDescriptor(series).results(for: healthStore) { heartbeats.append(heartbeat) }
        #expect(heartbeats.map(\.timeIntervalSinceStart) == [0.8, 2.4])
        #expect(heartbeats.map(\.precededByGap) == [false, true])
    }

    @Test("HKStateOfMind: default metadata, ValenceClassification(valence:) failable, raw values, the four HKQuery predicates")
    func stateOfMind() async throws {
        let folder = TemporaryFolder()
        let healthStore = TestStores.owner(folder)
        #expect(HKStateOfMind.Kind.momentaryEmotion.rawValue == 1 && HKStateOfMind.Kind.dailyMood.rawValue == 2)
        #expect(HKStateOfMind.Label.amazed.rawValue == 1 && HKStateOfMind.Label.satisfied.rawValue == 38)
        #expect(HKStateOfMind.Association.community.rawValue == 1 && HKStateOfMind.Association.weather.rawValue == 18)
        #expect(HKStateOfMind.ValenceClassification.veryUnpleasant.rawValue == 1)
        #expect(HKStateOfMind.ValenceClassification.veryPleasant.rawValue == 7)
        let classification: HKStateOfMind.ValenceClassification? = HKStateOfMind.ValenceClassification(valence: 0.95)
        #expect(classification == .veryPleasant)
        #expect(HKStateOfMind.ValenceClassification(valence: 1.5) == nil)

        let happy = HKStateOfMind(date: start, kind: .momentaryEmotion, valence: 0.7, labels: [.happy, .grateful], associations: [.family])
        let stressed = HKStateOfMind(date: start, kind: .dailyMood, valence: -0.5, labels: [.stressed], associations: [.work],
                                     metadata: ["journal": "entry"])
        try await healthStore.save([happy, stressed])
        #expect(happy.metadata == nil)
        #expect(happy.valenceClassification == .pleasant || happy.valenceClassification == .veryPleasant)

        func read(_ predicate: NSPredicate) async throws -> [UUID] {
            try await HKSampleQueryDescriptor(predicates: [.stateOfMind(predicate)], sortDescriptors: []).result(for: healthStore).map(\.uuid)
        }
        #expect(try await read(HKQuery.predicateForStatesOfMind(withValence: 0, operatorType: .greaterThan)) == [happy.uuid])
        #expect(try await read(HKQuery.predicateForStatesOfMind(with: HKStateOfMind.Kind.dailyMood)) == [stressed.uuid])
        #expect(try await read(HKQuery.predicateForStatesOfMind(with: HKStateOfMind.Label.grateful)) == [happy.uuid])
        #expect(try await read(HKQuery.predicateForStatesOfMind(with: HKStateOfMind.Association.work)) == [stressed.uuid])
        let mood: HKStateOfMindType = HKObjectType.stateOfMindType()
        #expect(mood.identifier == happy.sampleType.identifier)
    }

    @Test("HKGAD7Assessment / HKPHQ9Assessment: init(date:answers:) with metadata defaulted, answers, risk raw values, score")
    func assessments() async throws {
        let folder = TemporaryFolder()
        let healthStore = TestStores.owner(folder)
        let gad7 = HKGAD7Assessment(date: start, answers: Array(repeating: .nearlyEveryDay, count: 7))
        #expect(gad7.score == 21)
        #expect(gad7.risk == .severe)
        #expect(HKGAD7Assessment.Risk.noneToMinimal.rawValue == 1 && HKGAD7Assessment.Risk.severe.rawValue == 4)
        #expect(HKGAD7Assessment.Answer.notAtAll.rawValue == 0 && HKGAD7Assessment.Answer.nearlyEveryDay.rawValue == 3)
        let answers: [HKPHQ9Assessment.Answer] = [.severalDays, .severalDays, .moreThanHalfTheDays, .notAtAll, .notAtAll,
                                                  .severalDays, .notAtAll, .notAtAll, .notAtAll]
        let phq9 = HKPHQ9Assessment(date: start, answers: answers, metadata: nil)
        #expect(phq9.score == 5)
        #expect(phq9.risk == .mild)
        #expect(HKPHQ9Assessment.Risk.moderatelySevere.rawValue == 4 && HKPHQ9Assessment.Risk.severe.rawValue == 5)
        #expect(HKPHQ9Assessment.Answer.preferNotToAnswer.rawValue == 4)
        try await healthStore.save([gad7, phq9])
        let gadType = try #require(HKObjectType.scoredAssessmentType(forIdentifier: .GAD7))
        let read = try await HKSampleQueryDescriptor(predicates: [.sample(type: gadType)], sortDescriptors: []).result(for: healthStore)
        #expect((read.first as? HKGAD7Assessment)?.answers == gad7.answers)
    }

    @Test("HKAudiogramSensitivityTest and ClampingRange throwing initializers (NSNumber bounds), points from tests, HKAudiogramSample")
    func audiogram() throws {
        let dBHL = HKUnit.decibelHearingLevel()
        let range = try HKAudiogramSensitivityPointClampingRange(lowerBound: NSNumber(value: 0), upperBound: nil)
        #expect(range.lowerBound == HKQuantity(unit: dBHL, doubleValue: 0) && range.upperBound == nil)
        let left = try HKAudiogramSensitivityTest(sensitivity: HKQuantity(unit: dBHL, doubleValue: 20), type: .air, masked: false,
                                                  side: .left, clampingRange: range)
        let right = try HKAudiogramSensitivityTest(sensitivity: HKQuantity(unit: dBHL, doubleValue: 35), type: .air, masked: false,
                                                   side: .right, clampingRange: nil)
        #expect(HKAudiogramSensitivityTestSide.left.rawValue == 0 && HKAudiogramConductionType.air.rawValue == 0)
        let point = try HKAudiogramSensitivityPoint(frequency: HKQuantity(unit: .hertz(), doubleValue: 1000), tests: [left, right])
        #expect(point.tests.count == 2)
        #expect(point.leftEarSensitivity == HKQuantity(unit: dBHL, doubleValue: 20))
        #expect(point.rightEarSensitivity == HKQuantity(unit: dBHL, doubleValue: 35))
        let audiogram = HKAudiogramSample(sensitivityPoints: [point], start: start, end: start.addingTimeInterval(600), metadata: nil)
        #expect(audiogram.sensitivityPoints.first?.frequency == HKQuantity(unit: .hertz(), doubleValue: 1000))
        let unbounded = Result { try HKAudiogramSensitivityPointClampingRange(lowerBound: nil, upperBound: nil) }
        #expect((try? unbounded.get()) == nil)
    }

    @Test("HKGlassesPrescription / HKContactsPrescription initializers, requestPerObjectReadAuthorization(for:predicate:) both forms")
    func visionPrescriptions() async throws {
        let folder = TemporaryFolder()
        let healthStore = TestStores.owner(folder)
        let sphere = HKQuantity(unit: .diopter(), doubleValue: -0.75)
        let glassesLens = HKGlassesLensSpecification(sphere: sphere, cylinder: nil, axis: nil, addPower: nil, vertexDistance: nil,
                                                     prism: HKVisionPrism(amount: HKQuantity(unit: .prismDiopter(), doubleValue: 1),
                                                                          angle: HKQuantity(unit: .degreeAngle(), doubleValue: 90),
                                                                          eye: .right),
                                                     farPupillaryDistance: nil, nearPupillaryDistance: nil)
        let glasses = HKGlassesPrescription(rightEyeSpecification: glassesLens, leftEyeSpecification: nil, dateIssued: start,
                                            expirationDate: nil, device: nil, metadata: nil)
        let contactsLens = HKContactsLensSpecification(sphere: sphere, cylinder: nil, axis: nil, addPower: nil,
                                                       baseCurve: HKQuantity(unit: .meterUnit(with: .milli), doubleValue: 8.6), diameter: nil)
        let contacts = HKContactsPrescription(rightEyeSpecification: contactsLens, leftEyeSpecification: contactsLens, brand: "Acme",
                                              dateIssued: start, expirationDate: start.addingTimeInterval(86_400 * 365), device: nil,
                                              metadata: nil)
        #expect(glasses.prescriptionType == .glasses && contacts.prescriptionType == .contacts)
        #expect(HKVisionPrescriptionType.glasses.rawValue == 1 && HKVisionEye.left.rawValue == 1 && HKPrismBase.out.rawValue == 4)
        #expect(glasses.rightEye?.prism?.eye == .right && contacts.brand == "Acme")
        try await healthStore.save([glasses, contacts])
        let prescriptionType = HKObjectType.visionPrescriptionType()
        try await healthStore.requestPerObjectReadAuthorization(for: prescriptionType, predicate: nil)
        let done7 = try await completion { healthStore.requestPerObjectReadAuthorization(for: prescriptionType, predicate: nil, completion: $0) }
        #expect(done7)
        let read = try await HKSampleQueryDescriptor(predicates: [.sample(type: prescriptionType)], sortDescriptors: []).result(for: healthStore)
        #expect(Set(read.map(\.uuid)) == [glasses.uuid, contacts.uuid])
    }

    @Test("HKCategoryValuePredicateProviding: predicateForSamples(_:value:) and (equalTo:) on the value enums Apple conforms")
    func categoryValuePredicates() async throws {
        let folder = TemporaryFolder()
        let healthStore = TestStores.owner(folder)
        let sleepType = HKCategoryType(.sleepAnalysis)
        let values: [HKCategoryValueSleepAnalysis] = [.inBed, .asleepCore, .awake, .asleepREM]
        let samples = values.enumerated().map { index, value in
            HKCategorySample(type: sleepType, value: value.rawValue, start: start.addingTimeInterval(Double(index) * 600),
                             end: start.addingTimeInterval(Double(index) * 600 + 600))
        }
        try await healthStore.save(samples)
        func read(_ predicate: NSPredicate) async throws -> [Int] {
            let descriptor = HKSampleQueryDescriptor(predicates: [.categorySample(type: sleepType, predicate: predicate)],
                                                     sortDescriptors: [SortDescriptor(\.startDate)])
            return try await descriptor.result(for: healthStore).map(\.value)
        }
        let asleep = HKCategoryValueSleepAnalysis.predicateForSamples(equalTo: HKCategoryValueSleepAnalysis.allAsleepValues)
        #expect(try await read(asleep) == [HKCategoryValueSleepAnalysis.asleepCore.rawValue, HKCategoryValueSleepAnalysis.asleepREM.rawValue])
        let notInBed = HKCategoryValueSleepAnalysis.predicateForSamples(.notEqualTo, value: .inBed)
        #expect(try await read(notInBed).count == 3)
        // Other conforming enums compile the same way.
        _ = HKCategoryValueSeverity.predicateForSamples(.greaterThanOrEqualTo, value: .moderate)
        _ = HKCategoryValueAppleStandHour.predicateForSamples(equalTo: [.stood])
        _ = HKCategoryValueVaginalBleeding.predicateForSamples(equalTo: [.light, .heavy])
    }

    @Test("Descriptors: HKSourceQueryDescriptor, HKActivitySummaryQueryDescriptor, HKVerifiableClinicalRecordQueryDescriptor, medications")
    func descriptors() async throws {
        let folder = TemporaryFolder()
        let healthStore = TestStores.owner(folder)
        let stepType = HKQuantityType(.stepCount)
        try await healthStore.save(HKQuantitySample(type: stepType, quantity: HKQuantity(unit: .count(), doubleValue: 40), start: start,
                                                    end: start.addingTimeInterval(60)))
        var sourceDescriptor = HKSourceQueryDescriptor(predicate: .quantitySample(type: stepType))
        let sources: [HKSource] = try await sourceDescriptor.result(for: healthStore)
        #expect(sources.count == 1)
        sourceDescriptor.predicate = .quantitySample(type: HKQuantityType(.heartRate))
        #expect(try await sourceDescriptor.result(for: healthStore).isEmpty)

        var summaries = HKActivitySummaryQueryDescriptor(predicate: nil)
        summaries.predicate = HKQuery.predicateForActivitySummary(with: Calendar(identifier: .gregorian).dateComponents(
            [.era, .year, .month, .day], from: start))
        let summaryResult: [HKActivitySummary] = try await summaries.result(for: healthStore)
        #expect(summaryResult.isEmpty)

        // predicate defaults to nil; recordTypes are [HKVerifiableClinicalRecordCredentialType] (settable).
        var records = HKVerifiableClinicalRecordQueryDescriptor(recordTypes: [.immunization], sourceTypes: [.smartHealthCard])
        #expect(records.predicate == nil)
        records.recordTypes.append(.laboratory)
        #expect(records.recordTypes == [.immunization, .laboratory] && records.sourceTypes == [.smartHealthCard])

        // Medications (iOS 26): predicate and limit default to nil, both settable.
        var medications = HKUserAnnotatedMedicationQueryDescriptor()
        medications.predicate = HKQuery.predicateForUserAnnotatedMedications(isArchived: false)
        medications.limit = 5
        let annotated: [HKUserAnnotatedMedication] = try await medications.result(for: healthStore)
        #expect(annotated.isEmpty)
        let doses = HKSampleQueryDescriptor(predicates: [.sample(type: HKObjectType.medicationDoseEventType(),
                                                                 predicate: HKQuery.predicateForMedicationDoseEvent(status: .taken))],
                                            sortDescriptors: [])
        #expect(try await doses.result(for: healthStore).isEmpty)
        #expect(HKMedicationDoseEvent.LogStatus.notInteracted.rawValue == 1 && HKMedicationDoseEvent.LogStatus.notLogged.rawValue == 6)
        #expect(HKMedicationDoseEvent.ScheduleType.asNeeded.rawValue == 1 && HKMedicationDoseEvent.ScheduleType.schedule.rawValue == 2)
        let coding = HKClinicalCoding(system: "http://www.nlm.nih.gov/research/umls/rxnorm", version: nil, code: "197361")
        #expect(coding.version == nil && coding.code == "197361")
    }

    @Test("HKWorkoutRouteQueryDescriptor(_:) results, HKWorkoutRouteQuery(route:dateInterval:dataHandler:)")
    func workoutRoute() async throws {
        let folder = TemporaryFolder()
        let healthStore = TestStores.owner(folder)
        let workout = HKWorkout(activityType: .running, start: start, end: start.addingTimeInterval(600))
        try await healthStore.save(workout)
        let routeBuilder = HKWorkoutRouteBuilder(healthStore: healthStore, device: nil)
        let locations = (0..<5).map { index in
            CLLocation(coordinate: CLLocationCoordinate2D(latitude: 47.0 + Double(index) * 0.001, longitude: 8.0), altitude: 400,
                       horizontalAccuracy: 5, verticalAccuracy: 5, timestamp: start.addingTimeInterval(Double(index) * 100))
        }
        try await routeBuilder.insertRouteData(locations)
        let route: HKWorkoutRoute = try await routeBuilder.finishRoute(with: workout, metadata: nil)

        var read: [CLLocation] = []
        for try await location in HKWorkoutRouteQueryDescriptor(route).results(for: healthStore) { read.append(location) }
        #expect(read.count == 5)

        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let window = DateInterval(start: start.addingTimeInterval(150), end: start.addingTimeInterval(350))
        let query = HKWorkoutRouteQuery(route: route, dateInterval: window) { _, routeData, done, error in
            continuation.yield(routeData?.count ?? 0)
            if done || error != nil { continuation.finish() }
        }
        healthStore.execute(query)
        var inWindow = 0
        for await count in stream { inWindow += count }
        #expect(inWindow == 2)
    }

    @Test("HKElectrocardiogramQuery and HKUserAnnotatedMedicationQuery take plain @escaping handlers: an app's non-Sendable method value")
    func nonSendableHandlers() async throws {
        let folder = TemporaryFolder()
        let healthStore = TestStores.owner(folder)
        let ecg = try HKElectrocardiogram(start: start, end: start.addingTimeInterval(0.01), classification: .sinusRhythm,
                                          symptomsStatus: .none, averageHeartRate: nil, samplingFrequency: HKQuantity(unit: .hertz(), doubleValue: 512),
                                          microvolts: [.appleWatchSimilarToLeadI: [10, 20, 30, 40, 50]], device: nil, metadata: nil)
        try await healthStore.save(ecg)
        // Apple declares `dataHandler: @escaping (HKElectrocardiogramQuery, HKElectrocardiogramQuery.Result) -> Void` (not
        // @Sendable): an app may hand over a method of its own, non-Sendable, object.
        let collector = AppHandlerObject()
        healthStore.execute(HKElectrocardiogramQuery(ecg, dataHandler: collector.handle))
        var voltages: [Double] = []
        for await value in collector.values { voltages.append(value) }
        #expect(voltages == [10, 20, 30, 40, 50])

        let other = AppHandlerObject()
        healthStore.execute(HKElectrocardiogramQuery(electrocardiogram: ecg, dataHandler: other.handleMeasurement))
        var count = 0
        for await _ in other.values { count += 1 }
        #expect(count == 5)

        let medications = AppHandlerObject()
        healthStore.execute(HKUserAnnotatedMedicationQuery(predicate: nil, limit: HKObjectQueryNoLimit, resultsHandler: medications.handleMedication))
        var tracked = 0
        for await _ in medications.values { tracked += 1 }
        #expect(tracked == 0)
    }
}

/// An app's handler object, deliberately not Sendable, whose methods are passed to queries as
/// handlers; it forwards what it receives to a stream the test reads.
private final class AppHandlerObject {
    let values: AsyncStream<Double>
    private let continuation: AsyncStream<Double>.Continuation

    init() {
        (values, continuation) = AsyncStream.makeStream(of: Double.self)
    }

    func handle(_ query: HKElectrocardiogramQuery, _ result: HKElectrocardiogramQuery.Result) {
        switch result {
        case .measurement(let measurement):
            continuation.yield(measurement.quantity(for: .appleWatchSimilarToLeadI)?.doubleValue(for: .voltUnit(with: .micro)) ?? .nan)
        case .done, .error:
            continuation.finish()
        }
    }

    func handleMeasurement(_ query: HKElectrocardiogramQuery, _ measurement: HKElectrocardiogram.VoltageMeasurement?, _ done: Bool,
                           _ error: (any Error)?) {
        if let measurement { continuation.yield(measurement.timeSinceSampleStart) }
        if done || error != nil { continuation.finish() }
    }

    func handleMedication(_ query: HKUserAnnotatedMedicationQuery, _ medication: HKUserAnnotatedMedication?, _ done: Bool,
                          _ error: (any Error)?) {
        if medication != nil { continuation.yield(1) }
        if done || error != nil { continuation.finish() }
    }
}
