import Foundation
import Testing
@testable import OpenHealthKit

/// Electrocardiograms and audiograms through anchored object queries (what was added, then what
/// was deleted, from the anchor on), and who reads audiograms and GAD-7 / PHQ-9 assessments: a
/// denied read looks like no data, a granted one sees every sample with its contents.
@Suite("Clinical measurements: anchored queries and authorization")
struct ClinicalMeasurementsAnchoredTests {
    static func audiogram(at start: Date, left: Double) throws -> HKAudiogramSample {
        let points = try [500.0, 1000, 4000].map { hertz in
            try HKAudiogramSensitivityPoint(frequency: HKQuantity(unit: .hertz(), doubleValue: hertz), tests: [
                HKAudiogramSensitivityTest(sensitivity: HKQuantity(unit: .decibelHearingLevel(), doubleValue: left), type: .air, masked: false,
                                           side: .left, clampingRange: nil),
                HKAudiogramSensitivityTest(sensitivity: HKQuantity(unit: .decibelHearingLevel(), doubleValue: left + 5), type: .air, masked: false,
                                           side: .right, clampingRange: nil),
            ])
        }
        return HKAudiogramSample(sensitivityPoints: points, start: start, end: start.addingTimeInterval(600), device: nil, metadata: nil)
    }

    @Test("ECGs: an anchored query returns them whole, then from its anchor only the deletion, for the owner and a reading app")
    func electrocardiogramAnchoredRoundTrip() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let kept = try ClinicalMeasurementsTests.ecg(at: Samples.reference, count: 512)
        let deleted = try ClinicalMeasurementsTests.ecg(at: Samples.reference.addingTimeInterval(3_600), count: 1_024)
        try await owner.save([kept, deleted])
        let app = TestStores.app(folder, bundle: "com.example.heart")
        try await app.requestAuthorization(toShare: [], read: [HKObjectType.electrocardiogramType()])

        var anchors: [HKQueryAnchor] = []
        for store in [owner, app] {
            let first = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: .electrocardiogramType())], anchor: nil).result(for: store)
            #expect(Set(first.addedSamples.map(\.uuid)) == [kept.uuid, deleted.uuid])
            #expect(first.deletedObjects.isEmpty)
            let read = try #require(first.addedSamples.first { $0.uuid == deleted.uuid } as? HKElectrocardiogram)
            #expect(read.numberOfVoltageMeasurements == 1_024 && read.classification == .atrialFibrillation && read.symptomsStatus == .present)
            #expect(read.averageHeartRate?.doubleValue(for: Samples.bpm) == 88 && read.samplingFrequency?.doubleValue(for: .hertz()) == 512)
            anchors.append(first.newAnchor)
        }

        try await owner.delete(deleted)
        for (store, anchor) in zip([owner, app], anchors) {
            let next = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: .electrocardiogramType())], anchor: anchor)
                .result(for: store)
            #expect(next.addedSamples.isEmpty)
            #expect(next.deletedObjects.map(\.uuid) == [deleted.uuid])
            let again = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: .electrocardiogramType())], anchor: next.newAnchor)
                .result(for: store)
            #expect(again.addedSamples.isEmpty && again.deletedObjects.isEmpty)
        }
        let left = try await HKSampleQueryDescriptor(predicates: [.sample(type: .electrocardiogramType())], sortDescriptors: []).result(for: owner)
        #expect(left.map(\.uuid) == [kept.uuid])
    }

    @Test("Audiograms: an anchored query returns every point and test, then from its anchor only the deletion")
    func audiogramAnchoredRoundTrip() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let kept = try Self.audiogram(at: Samples.reference, left: 20)
        let deleted = try Self.audiogram(at: Samples.reference.addingTimeInterval(86_400), left: 35)
        try await store.save([kept, deleted])

        let first = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: .audiogramSampleType())], anchor: nil).result(for: store)
        #expect(Set(first.addedSamples.map(\.uuid)) == [kept.uuid, deleted.uuid])
        let read = try #require(first.addedSamples.first { $0.uuid == deleted.uuid } as? HKAudiogramSample)
        #expect(read.sensitivityPoints.map { $0.frequency.doubleValue(for: .hertz()) } == [500, 1000, 4000])
        #expect(read.sensitivityPoints.map { $0.leftEarSensitivity?.doubleValue(for: .decibelHearingLevel()) } == [35, 35, 35])
        #expect(read.sensitivityPoints.map { $0.rightEarSensitivity?.doubleValue(for: .decibelHearingLevel()) } == [40, 40, 40])

        try await store.delete(deleted)
        let next = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: .audiogramSampleType())], anchor: first.newAnchor)
            .result(for: store)
        #expect(next.addedSamples.isEmpty)
        #expect(next.deletedObjects.map(\.uuid) == [deleted.uuid])
        let rest = try await HKSampleQueryDescriptor(predicates: [.sample(type: .audiogramSampleType())], sortDescriptors: []).result(for: store)
        #expect(rest.map(\.uuid) == [kept.uuid])
    }

    @Test("GAD-7, PHQ-9 and audiograms: a denied read looks like no data (as an empty store), a granted one reads them")
    func assessmentsAndAudiogramsAuthorization() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let gad7 = HKGAD7Assessment(date: Samples.reference, answers: Array(repeating: .severalDays, count: 7))
        let phq9 = HKPHQ9Assessment(date: Samples.reference, answers: Array(repeating: .notAtAll, count: 8) + [.preferNotToAnswer])
        let audiogram = try Self.audiogram(at: Samples.reference, left: 15)
        try await owner.save([gad7, phq9, audiogram])
        let types: [HKSampleType] = [try #require(HKObjectType.scoredAssessmentType(forIdentifier: .GAD7)),
                                     try #require(HKObjectType.scoredAssessmentType(forIdentifier: .PHQ9)), .audiogramSampleType()]

        let denied = TestStores.app(folder, bundle: "com.example.denied", provider: PolicyFileAuthorizationProvider(policy: .init(apps: [:])))
        try await denied.requestAuthorization(toShare: [], read: Set(types))
        let emptyFolder = TemporaryFolder()
        let empty = TestStores.app(emptyFolder, bundle: "com.example.denied")
        try await empty.requestAuthorization(toShare: [], read: Set(types))
        // The denied app's answers are those of an app reading an empty store.
        for type in types {
            #expect(denied.authorizationStatus(for: type) == .notDetermined)
            let query = HKSampleQueryDescriptor(predicates: [.sample(type: type)], sortDescriptors: [])
            let samples = try await query.result(for: denied), emptySamples = try await query.result(for: empty)
            #expect(samples.isEmpty && emptySamples.isEmpty, "\(type.identifier)")
            let anchoredQuery = HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: type)], anchor: nil)
            let anchored = try await anchoredQuery.result(for: denied), emptyAnchored = try await anchoredQuery.result(for: empty)
            #expect(anchored.addedSamples.isEmpty && anchored.deletedObjects.isEmpty, "\(type.identifier)")
            #expect(emptyAnchored.addedSamples.isEmpty && emptyAnchored.deletedObjects.isEmpty, "\(type.identifier)")
        }
        // Saving is refused too: the policy shares nothing.
        await #expect(throws: HKError.self) { try await denied.save(HKGAD7Assessment(date: Samples.reference, answers: gad7.answers)) }

        let granted = TestStores.app(folder, bundle: "com.example.granted")
        try await granted.requestAuthorization(toShare: [], read: Set(types))
        var seen: [UUID] = []
        for type in types {
            seen += try await HKSampleQueryDescriptor(predicates: [.sample(type: type)], sortDescriptors: []).result(for: granted).map(\.uuid)
        }
        #expect(seen == [gad7.uuid, phq9.uuid, audiogram.uuid])
        let readGAD7 = try await HKSampleQueryDescriptor(predicates: [.sample(type: types[0])], sortDescriptors: []).result(for: granted)
        #expect((readGAD7.first as? HKGAD7Assessment)?.score == 7)
        let readPHQ9 = try await HKSampleQueryDescriptor(predicates: [.sample(type: types[1])], sortDescriptors: []).result(for: granted)
        #expect((readPHQ9.first as? HKPHQ9Assessment)?.answers.last == .preferNotToAnswer)
    }
}
