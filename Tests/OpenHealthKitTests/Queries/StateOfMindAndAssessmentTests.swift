import Foundation
import Testing
import TestSupport
@testable import OpenHealthKit

/// State of mind and scored assessments: saved sealed in the SQLite store, read by sample
/// queries, descriptors and anchored queries (with deletions), and matched by predicates.
@Suite("HKStateOfMind and scored assessments", .timeLimit(.minutes(10)))
struct StateOfMindAndAssessmentTests {
    static let start = Samples.reference

    static func mind(_ valence: Double, _ kind: HKStateOfMind.Kind, at offset: TimeInterval, labels: [HKStateOfMind.Label] = [],
                     associations: [HKStateOfMind.Association] = []) -> HKStateOfMind {
        HKStateOfMind(date: start.addingTimeInterval(offset), kind: kind, valence: valence, labels: labels, associations: associations)
    }

    @Test("A state of mind saves and reads back whole: kind, valence, labels, associations, metadata, date")
    func roundTrip() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let saved = HKStateOfMind(date: Self.start, kind: .dailyMood, valence: -0.35, labels: [.stressed, .drained, .hopeful],
                                  associations: [.work, .weather], metadata: [HKMetadataKeySyncIdentifier: "mood-1",
                                                                              HKMetadataKeySyncVersion: 1])
        try await store.save(saved)
        // A fresh store object on the same file reads the sealed row, not a cached object.
        let reader = TestStores.owner(folder)
        let read = try await reader.runSampleQuery(HKObjectType.stateOfMindType())
        let mind = try #require(read.first as? HKStateOfMind)
        #expect(read.count == 1)
        #expect(mind.uuid == saved.uuid)
        #expect(mind.kind == .dailyMood && mind.valence == -0.35)
        #expect(mind.valenceClassification == .slightlyUnpleasant)
        #expect(mind.labels == [.stressed, .drained, .hopeful] && mind.associations == [.work, .weather])
        #expect(mind.startDate == Self.start && mind.endDate == Self.start)
        #expect(mind.metadata?[HKMetadataKeySyncIdentifier] as? String == "mood-1")
        #expect(mind.sampleType == HKObjectType.stateOfMindType())
        #expect(mind.sampleType.identifier == "HKDataTypeStateOfMind")
        #expect(HKObjectType.sampleType(named: "stateOfMind") == HKStateOfMindType())
    }

    @Test("Valences are sealed: neither the valence nor a label is in the database file")
    func sealed() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let saved = HKStateOfMind(date: Self.start, kind: .momentaryEmotion, valence: 0.123456789, labels: [.happy], associations: [],
                                  metadata: ["Journal": "felt-wonderful-marker"])
        try await store.save(saved)
        let bytes = try Data(contentsOf: folder.database)
        var valence = 0.123456789
        let valenceBytes = withUnsafeBytes(of: &valence) { Data($0) }
        #expect(bytes.range(of: valenceBytes) == nil)
        #expect(bytes.range(of: Data("felt-wonderful-marker".utf8)) == nil)
    }

    @Test("A valence outside -1...1 is refused with errorInvalidArgument and nothing is stored")
    func invalidValence() async throws {
        let store = TestStores.memory()
        for valence in [1.01, -1.5, Double.nan, Double.infinity] {
            await #expect(throws: HKError.self) { try await store.save(Self.mind(valence, .dailyMood, at: 0)) }
        }
        #expect(try await store.runSampleQuery(HKStateOfMindType()).isEmpty)
        // The bounds themselves are valid.
        try await store.save([Self.mind(-1, .dailyMood, at: 0), Self.mind(1, .dailyMood, at: 60)])
        #expect(try await store.runSampleQuery(HKStateOfMindType()).count == 2)
    }

    @Test("Valence classification: seven equal bands over -1...1, nil outside")
    func classification() {
        typealias C = HKStateOfMind.ValenceClassification
        let table: [(Double, C?)] = [
            (-1, .veryUnpleasant), (-0.72, .veryUnpleasant), (-0.7, .unpleasant), (-0.43, .unpleasant), (-0.42, .slightlyUnpleasant),
            (-0.15, .slightlyUnpleasant), (-0.14, .neutral), (0, .neutral), (0.14, .neutral), (0.15, .slightlyPleasant),
            (0.42, .slightlyPleasant), (0.43, .pleasant), (0.7, .pleasant), (0.72, .veryPleasant), (1, .veryPleasant),
            (1.0001, nil), (-1.0001, nil), (.nan, nil),
        ]
        for (valence, expected) in table {
            #expect(C(valence: valence) == expected, "valence \(valence)")
        }
        #expect(HKStateOfMind.Kind.momentaryEmotion.rawValue == 1 && HKStateOfMind.Kind.dailyMood.rawValue == 2)
        #expect(HKStateOfMind.Label.satisfied.rawValue == 38 && HKStateOfMind.Association.weather.rawValue == 18)
    }

    @Test("Predicates by kind, valence, label and association, alone and combined, through sample queries and descriptors")
    func predicates() async throws {
        let store = TestStores.memory()
        let happyFamily = Self.mind(0.8, .momentaryEmotion, at: 0, labels: [.happy, .grateful], associations: [.family])
        let stressedWork = Self.mind(-0.6, .momentaryEmotion, at: 60, labels: [.stressed], associations: [.work])
        let okayDay = Self.mind(0.1, .dailyMood, at: 120, labels: [.calm], associations: [.work, .family])
        try await store.save([happyFamily, stressedWork, okayDay])
        // A sleep sample must never match a state-of-mind predicate.
        try await store.save(Samples.sleep(.asleepCore, at: 0, minutes: 30))

        func uuids(_ predicate: NSPredicate) async throws -> Set<UUID> {
            Set(try await store.runSampleQuery(HKStateOfMindType(), predicate: predicate).map(\.uuid))
        }
        #expect(try await uuids(HKQuery.predicateForStatesOfMind(with: HKStateOfMind.Kind.dailyMood)) == [okayDay.uuid])
        #expect(try await uuids(HKQuery.predicateForStatesOfMind(with: HKStateOfMind.Kind.momentaryEmotion))
                == [happyFamily.uuid, stressedWork.uuid])
        #expect(try await uuids(HKQuery.predicateForStatesOfMind(withValence: 0, operatorType: .greaterThan))
                == [happyFamily.uuid, okayDay.uuid])
        #expect(try await uuids(HKQuery.predicateForStatesOfMind(withValence: -0.6, operatorType: .lessThanOrEqualTo)) == [stressedWork.uuid])
        #expect(try await uuids(HKQuery.predicateForStatesOfMind(with: HKStateOfMind.Label.calm)) == [okayDay.uuid])
        #expect(try await uuids(HKQuery.predicateForStatesOfMind(with: HKStateOfMind.Association.work)) == [stressedWork.uuid, okayDay.uuid])
        let workButPleasant = NSCompoundPredicate(andPredicateWithSubpredicates: [
            HKQuery.predicateForStatesOfMind(with: HKStateOfMind.Association.work),
            HKQuery.predicateForStatesOfMind(withValence: 0, operatorType: .greaterThanOrEqualTo),
            HKQuery.predicateForSamples(withStart: Self.start, end: Self.start.addingTimeInterval(3600)),
        ])
        #expect(try await uuids(workButPleasant) == [okayDay.uuid])

        let descriptor = HKSampleQueryDescriptor(predicates: [.stateOfMind(HKQuery.predicateForStatesOfMind(with: .family))],
                                                 sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)])
        let typed: [HKStateOfMind] = try await descriptor.result(for: store)
        #expect(typed.map(\.uuid) == [okayDay.uuid, happyFamily.uuid])
        #expect(try await HKSampleQueryDescriptor(predicates: [.stateOfMind()], sortDescriptors: []).result(for: store).count == 3)
    }

    @Test("Anchored queries report states of mind and assessments added, then deleted")
    func anchoredWithDeletion() async throws {
        let store = TestStores.memory()
        let mood = Self.mind(0.5, .dailyMood, at: 0, labels: [.content])
        let gad = HKGAD7Assessment(date: Self.start, answers: [.severalDays, .notAtAll, .notAtAll, .nearlyEveryDay, .notAtAll, .notAtAll,
                                                               .severalDays])
        try await store.save([mood, gad])
        let first = try await store.runAnchoredQuery(HKStateOfMindType(), anchor: nil)
        #expect(first.added.map(\.uuid) == [mood.uuid] && first.deleted.isEmpty)
        let gadType = try #require(HKObjectType.scoredAssessmentType(forIdentifier: .GAD7))
        let firstGAD = try await store.runAnchoredQuery(gadType, anchor: nil)
        #expect((firstGAD.added.first as? HKGAD7Assessment)?.score == 5)

        try await store.delete([mood, gad])
        let second = try await store.runAnchoredQuery(HKStateOfMindType(), anchor: first.anchor)
        #expect(second.added.isEmpty && second.deleted.map(\.uuid) == [mood.uuid])
        let secondGAD = try await store.runAnchoredQuery(gadType, anchor: firstGAD.anchor)
        #expect(secondGAD.deleted.map(\.uuid) == [gad.uuid])

        let descriptor = HKAnchoredObjectQueryDescriptor(predicates: [.stateOfMind()], anchor: first.anchor)
        let result = try await descriptor.result(for: store)
        #expect(result.deletedObjects.map(\.uuid) == [mood.uuid])
    }

    @Test("An app reads and writes states of mind only as authorized")
    func authorization() async throws {
        let folder = TemporaryFolder()
        let app = TestStores.app(folder, bundle: "com.example.mood")
        await #expect(throws: HKError.self) { try await app.save(Self.mind(0.2, .dailyMood, at: 0)) }
        try await app.requestAuthorization(toShare: [HKObjectType.stateOfMindType()], read: [HKObjectType.stateOfMindType()])
        try await app.save(Self.mind(0.2, .dailyMood, at: 0))
        #expect(app.authorizationStatus(for: HKObjectType.stateOfMindType()) == .sharingAuthorized)
        #expect(try await app.runSampleQuery(HKStateOfMindType()).count == 1)
    }
}

/// GAD-7 and PHQ-9: scores and risks as the published questionnaires define them.
@Suite("HKGAD7Assessment and HKPHQ9Assessment")
struct ScoredAssessmentTests {
    @Test("GAD-7: the score is the sum of the answers; risk bands 0–4, 5–9, 10–14, 15–21")
    func gad7Table() {
        typealias A = HKGAD7Assessment.Answer
        let table: [(answers: [A], score: Int, risk: HKGAD7Assessment.Risk)] = [
            (Array(repeating: .notAtAll, count: 7), 0, .noneToMinimal),
            ([.nearlyEveryDay, .severalDays, .notAtAll, .notAtAll, .notAtAll, .notAtAll, .notAtAll], 4, .noneToMinimal),
            ([.nearlyEveryDay, .moreThanHalfTheDays, .notAtAll, .notAtAll, .notAtAll, .notAtAll, .notAtAll], 5, .mild),
            ([.nearlyEveryDay, .nearlyEveryDay, .nearlyEveryDay, .notAtAll, .notAtAll, .notAtAll, .notAtAll], 9, .mild),
            ([.nearlyEveryDay, .nearlyEveryDay, .nearlyEveryDay, .severalDays, .notAtAll, .notAtAll, .notAtAll], 10, .moderate),
            (Array(repeating: .moreThanHalfTheDays, count: 7), 14, .moderate),
            ([.nearlyEveryDay, .moreThanHalfTheDays, .moreThanHalfTheDays, .moreThanHalfTheDays, .moreThanHalfTheDays,
              .moreThanHalfTheDays, .moreThanHalfTheDays], 15, .severe),
            (Array(repeating: .nearlyEveryDay, count: 7), 21, .severe),
        ]
        for row in table {
            let assessment = HKGAD7Assessment(date: Samples.reference, answers: row.answers)
            #expect(assessment.score == row.score && assessment.risk == row.risk, "answers \(row.answers.map(\.rawValue))")
        }
        #expect(HKGAD7Assessment.Risk.noneToMinimal.rawValue == 1 && HKGAD7Assessment.Risk.severe.rawValue == 4)
    }

    @Test("PHQ-9: declining the ninth question scores 0; risk bands 0–4, 5–9, 10–14, 15–19, 20–27")
    func phq9Table() {
        typealias A = HKPHQ9Assessment.Answer
        func answers(_ points: [Int], ninth: A = .notAtAll) -> [A] { points.compactMap(A.init(rawValue:)) + [ninth] }
        let table: [(answers: [A], score: Int, risk: HKPHQ9Assessment.Risk)] = [
            (answers([0, 0, 0, 0, 0, 0, 0, 0], ninth: .preferNotToAnswer), 0, .noneToMinimal),
            (answers([3, 1, 0, 0, 0, 0, 0, 0]), 4, .noneToMinimal),
            (answers([3, 2, 0, 0, 0, 0, 0, 0]), 5, .mild),
            (answers([3, 3, 3, 0, 0, 0, 0, 0]), 9, .mild),
            (answers([3, 3, 3, 1, 0, 0, 0, 0]), 10, .moderate),
            (answers([3, 3, 3, 3, 2, 0, 0, 0]), 14, .moderate),
            (answers([3, 3, 3, 3, 3, 0, 0, 0]), 15, .moderatelySevere),
            (answers([3, 3, 3, 3, 3, 3, 1, 0], ninth: .preferNotToAnswer), 19, .moderatelySevere),
            (answers([3, 3, 3, 3, 3, 3, 2, 0]), 20, .severe),
            (answers([3, 3, 3, 3, 3, 3, 3, 3], ninth: .nearlyEveryDay), 27, .severe),
        ]
        for row in table {
            let assessment = HKPHQ9Assessment(date: Samples.reference, answers: row.answers)
            #expect(assessment.score == row.score && assessment.risk == row.risk, "answers \(row.answers.map(\.rawValue))")
        }
        #expect(HKPHQ9Assessment.Risk.moderatelySevere.rawValue == 4 && HKPHQ9Assessment.Answer.preferNotToAnswer.rawValue == 4)
    }

    @Test("Assessments save sealed and read back with their answers, score and risk; bad answer lists are refused")
    func roundTripAndValidation() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let phq = HKPHQ9Assessment(date: Samples.reference, answers: [.severalDays, .moreThanHalfTheDays, .notAtAll, .nearlyEveryDay,
                                                                      .notAtAll, .severalDays, .notAtAll, .notAtAll, .preferNotToAnswer],
                                   metadata: ["Clinic": "north"])
        try await store.save(phq)
        let type = HKScoredAssessmentType(.PHQ9)
        let read = try #require(try await TestStores.owner(folder).runSampleQuery(type).first as? HKPHQ9Assessment)
        #expect(read.uuid == phq.uuid && read.answers == phq.answers && read.score == 7 && read.risk == .mild)
        #expect(read.metadata?["Clinic"] as? String == "north")
        #expect(read.startDate == Samples.reference && read.endDate == Samples.reference)
        #expect(read.sampleType.identifier == "HKScoredAssessmentTypeIdentifierPHQ9")
        #expect(HKObjectType.sampleType(named: "PHQ9") == type)
        #expect(HKObjectType.scoredAssessmentType(forIdentifier: HKScoredAssessmentTypeIdentifier(rawValue: "HKScoredAssessmentTypeIdentifierX")) == nil)

        await #expect(throws: HKError.self) {
            try await store.save(HKGAD7Assessment(date: Samples.reference, answers: [.notAtAll, .notAtAll]))
        }
        await #expect(throws: HKError.self) {
            try await store.save(HKPHQ9Assessment(date: Samples.reference, answers: [.preferNotToAnswer] + Array(repeating: .notAtAll, count: 8)))
        }
        #expect(try await store.runSampleQuery(HKScoredAssessmentType(.GAD7)).isEmpty)
        #expect(try await store.runSampleQuery(type).count == 1)
    }
}

/// `HKCategoryValuePredicateProviding` on every value enumeration Apple conforms.
@Suite("HKCategoryValuePredicateProviding")
struct CategoryValuePredicateProvidingTests {
    @Test("predicateForSamples(_:value:) and (equalTo:) match category samples by value")
    func predicates() async throws {
        let store = TestStores.memory()
        let core = Samples.sleep(.asleepCore, at: 0, minutes: 60)
        let deep = Samples.sleep(.asleepDeep, at: 3600, minutes: 30)
        let awake = Samples.sleep(.awake, at: 5400, minutes: 5)
        let inBed = Samples.sleep(.inBed, at: 0, minutes: 120)
        try await store.save([core, deep, awake, inBed])
        func uuids(_ predicate: NSPredicate) async throws -> Set<UUID> {
            Set(try await store.runSampleQuery(HKCategoryType(.sleepAnalysis), predicate: predicate).map(\.uuid))
        }
        #expect(try await uuids(HKCategoryValueSleepAnalysis.predicateForSamples(.equalTo, value: .asleepDeep)) == [deep.uuid])
        #expect(try await uuids(HKCategoryValueSleepAnalysis.predicateForSamples(.notEqualTo, value: .inBed))
                == [core.uuid, deep.uuid, awake.uuid])
        #expect(try await uuids(HKCategoryValueSleepAnalysis.predicateForSamples(equalTo: HKCategoryValueSleepAnalysis.allAsleepValues))
                == [core.uuid, deep.uuid])

        let headache = HKCategorySample(type: HKCategoryType(.headache), value: HKCategoryValueSeverity.moderate.rawValue,
                                        start: Samples.reference, end: Samples.reference.addingTimeInterval(600))
        try await store.save(headache)
        let severe = try await store.runSampleQuery(HKCategoryType(.headache),
                                                    predicate: HKCategoryValueSeverity.predicateForSamples(.greaterThanOrEqualTo, value: .moderate))
        #expect(severe.map(\.uuid) == [headache.uuid])
    }

    @Test("Every value enumeration Apple conforms provides the predicates")
    func conformances() {
        func provides<V: HKCategoryValuePredicateProviding>(_ value: V) -> Bool where V.RawValue == Int {
            V.predicateForSamples(equalTo: [value]) is HKQueryPredicate && V.predicateForSamples(.equalTo, value: value) is HKQueryPredicate
        }
        #expect(provides(HKCategoryValue.notApplicable))
        #expect(provides(HKCategoryValueAppetiteChanges.increased))
        #expect(provides(HKCategoryValueAppleStandHour.stood))
        #expect(provides(HKCategoryValueAppleWalkingSteadinessEvent.initialLow))
        #expect(provides(HKCategoryValueCervicalMucusQuality.dry))
        #expect(provides(HKCategoryValueContraceptive.oral))
        #expect(provides(HKCategoryValueEnvironmentalAudioExposureEvent.momentaryLimit))
        #expect(provides(HKCategoryValueHeadphoneAudioExposureEvent.sevenDayLimit))
        #expect(provides(HKCategoryValueLowCardioFitnessEvent.lowFitness))
        #expect(provides(HKCategoryValueMenstrualFlow.light))
        #expect(provides(HKCategoryValueOvulationTestResult.negative))
        #expect(provides(HKCategoryValuePregnancyTestResult.positive))
        #expect(provides(HKCategoryValuePresence.present))
        #expect(provides(HKCategoryValueProgesteroneTestResult.negative))
        #expect(provides(HKCategoryValueSeverity.mild))
        #expect(provides(HKCategoryValueSleepAnalysis.asleepREM))
        #expect(provides(HKCategoryValueVaginalBleeding.heavy))
    }
}
