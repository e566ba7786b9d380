import Foundation
import GRDB
import Testing
@testable import OpenHealthKit

/// Electrocardiograms, audiograms and vision prescriptions: saved, read back by sample and
/// anchored queries (deletions included), voltages by lead in order, and per-object reads.
@Suite("Clinical measurements")
struct ClinicalMeasurementsTests {
    /// A 30 s Apple Watch recording at 512 Hz: a ramp, so order is checkable.
    static func ecg(at start: Date = Samples.reference, count: Int = 15_360) throws -> HKElectrocardiogram {
        let values = (0..<count).map { Float($0 % 2000) * 0.5 - 500 }
        return try HKElectrocardiogram(start: start, end: start.addingTimeInterval(Double(count) / 512), classification: .atrialFibrillation,
                                       symptomsStatus: .present, averageHeartRate: HKQuantity(unit: Samples.bpm, doubleValue: 88),
                                       samplingFrequency: HKQuantity(unit: .hertz(), doubleValue: 512),
                                       microvolts: [.appleWatchSimilarToLeadI: values], device: nil, metadata: nil)
    }

    @Test("An electrocardiogram is one sealed row and reads back with every voltage, in order, by lead")
    func electrocardiogramRoundTrip() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let ecg = try Self.ecg()
        try await store.save(ecg)
        let rows = try store.engine.database().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sample") ?? 0 }
        #expect(rows == 1)

        let read = try await HKSampleQueryDescriptor(predicates: [.sample(type: .electrocardiogramType())], sortDescriptors: []).result(for: store)
        let stored = try #require(read.first as? HKElectrocardiogram)
        #expect(stored.uuid == ecg.uuid)
        #expect(stored.classification == .atrialFibrillation && stored.symptomsStatus == .present)
        #expect(stored.numberOfVoltageMeasurements == 15_360)
        #expect(stored.averageHeartRate?.doubleValue(for: Samples.bpm) == 88)
        #expect(stored.samplingFrequency?.doubleValue(for: .hertz()) == 512)

        // The callback form: every measurement, then .done.
        let measured = ClinicalLocked<[(TimeInterval, Double)]>([])
        let finished: Bool = await withCheckedContinuation { continuation in
            let query = HKElectrocardiogramQuery(stored) { _, result in
                switch result {
                case .measurement(let measurement):
                    if let volts = measurement.quantity(for: .appleWatchSimilarToLeadI) {
                        measured.withLock { $0.append((measurement.timeSinceSampleStart, volts.doubleValue(for: .voltUnit(with: .micro)))) }
                    }
                case .done: continuation.resume(returning: true)
                case .error: continuation.resume(returning: false)
                }
            }
            store.execute(query)
        }
        #expect(finished)
        let values = measured.withLock { $0 }
        #expect(values.count == 15_360)
        #expect(values.enumerated().allSatisfy { index, entry in entry.1 == Double(Float(index % 2000) * 0.5 - 500) })
        #expect(values[512].0 == 1.0)

        // The async descriptor gives the same voltages.
        var count = 0
        for try await measurement in HKElectrocardiogramQueryDescriptor(stored).results(for: store) {
            if count == 3 { #expect(measurement.quantity(for: .appleWatchSimilarToLeadI)?.doubleValue(for: .volt()) == -498.5e-6) }
            count += 1
        }
        #expect(count == 15_360)
    }

    @Test("Apps read electrocardiograms and never share them; a deleted one has no data")
    func electrocardiogramIsReadOnlyForApps() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let ecg = try Self.ecg(count: 100)
        try await owner.save(ecg)
        let app = TestStores.app(folder, bundle: "com.example.heart")
        await #expect(throws: HKError.self) { try await app.requestAuthorization(toShare: [.electrocardiogramType()], read: []) }
        try await app.requestAuthorization(toShare: [], read: [HKObjectType.electrocardiogramType()])
        let seen = try await HKSampleQueryDescriptor(predicates: [.sample(type: .electrocardiogramType())], sortDescriptors: []).result(for: app)
        #expect(seen.map(\.uuid) == [ecg.uuid])
        await #expect(throws: HKError.self) { try await app.save(try Self.ecg(count: 10)) }

        try await owner.delete(ecg)
        var error: (any Error)?
        do {
            for try await _ in HKElectrocardiogramQueryDescriptor(ecg).results(for: app) {}
        } catch let thrown {
            error = thrown
        }
        #expect((error as? HKError)?.code == .errorNoData)
    }

    @Test("Audiograms keep every point and test, both initializer forms")
    func audiogramRoundTrip() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let legacy = try HKAudiogramSensitivityPoint(frequency: HKQuantity(unit: .hertz(), doubleValue: 500),
                                                     leftEarSensitivity: HKQuantity(unit: .decibelHearingLevel(), doubleValue: 20),
                                                     rightEarSensitivity: HKQuantity(unit: .decibelHearingLevel(), doubleValue: 25))
        let range = try HKAudiogramSensitivityPointClampingRange(lowerBound: 0, upperBound: 90)
        let tested = try HKAudiogramSensitivityPoint(frequency: HKQuantity(unit: .hertzUnit(with: .kilo), doubleValue: 1), tests: [
            HKAudiogramSensitivityTest(sensitivity: HKQuantity(unit: .decibelHearingLevel(), doubleValue: 30), type: .air, masked: true,
                                       side: .left, clampingRange: range),
        ])
        let audiogram = HKAudiogramSample(sensitivityPoints: [legacy, tested], start: Samples.reference,
                                          end: Samples.reference.addingTimeInterval(300), device: nil, metadata: nil)
        try await store.save(audiogram)
        let read = try await HKSampleQueryDescriptor(predicates: [.sample(type: .audiogramSampleType())], sortDescriptors: []).result(for: store)
        let stored = try #require(read.first as? HKAudiogramSample)
        #expect(stored.sensitivityPoints.count == 2)
        #expect(stored.sensitivityPoints[0].leftEarSensitivity?.doubleValue(for: .decibelHearingLevel()) == 20)
        #expect(stored.sensitivityPoints[0].rightEarSensitivity?.doubleValue(for: .decibelHearingLevel()) == 25)
        #expect(stored.sensitivityPoints[1].frequency.doubleValue(for: .hertz()) == 1000)
        let test = try #require(stored.sensitivityPoints[1].tests.first)
        #expect(test.masked && test.side == .left && test.clampingRange?.upperBound?.doubleValue(for: .decibelHearingLevel()) == 90)

        // Frequencies must be unique and ascending.
        let unordered = HKAudiogramSample(sensitivityPoints: [tested, legacy], start: Samples.reference, end: Samples.reference, metadata: nil)
        await #expect(throws: HKError.self) { try await store.save(unordered) }
    }

    static func glasses(issued: Date) -> HKGlassesPrescription {
        let prism = HKVisionPrism(amount: HKQuantity(unit: .prismDiopter(), doubleValue: 0.25), angle: HKQuantity(unit: .degreeAngle(), doubleValue: 15),
                                  eye: .right)
        let right = HKGlassesLensSpecification(sphere: HKQuantity(unit: .diopter(), doubleValue: -0.75),
                                               cylinder: HKQuantity(unit: .diopter(), doubleValue: 1.25),
                                               axis: HKQuantity(unit: .degreeAngle(), doubleValue: 90), addPower: nil,
                                               vertexDistance: HKQuantity(unit: .meterUnit(with: .milli), doubleValue: 12), prism: prism,
                                               farPupillaryDistance: HKQuantity(unit: .meterUnit(with: .milli), doubleValue: 31),
                                               nearPupillaryDistance: nil)
        return HKGlassesPrescription(rightEyeSpecification: right, leftEyeSpecification: nil, dateIssued: issued,
                                     expirationDate: issued.addingTimeInterval(365 * 86_400), device: nil, metadata: nil)
    }

    @Test("Vision prescriptions: glasses and contacts round trip, anchored query reports the deletion")
    func prescriptionRoundTrip() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let glasses = Self.glasses(issued: Samples.reference)
        let contacts = HKContactsPrescription(
            rightEyeSpecification: HKContactsLensSpecification(sphere: HKQuantity(unit: .diopter(), doubleValue: -2), cylinder: nil, axis: nil,
                                                               addPower: nil, baseCurve: HKQuantity(unit: .meterUnit(with: .milli), doubleValue: 8.6),
                                                               diameter: HKQuantity(unit: .meterUnit(with: .milli), doubleValue: 14.2)),
            leftEyeSpecification: nil, brand: "Acme Daily", dateIssued: Samples.reference.addingTimeInterval(60), expirationDate: nil,
            device: nil, metadata: nil)
        try await store.save([glasses, contacts])
        let descriptor = HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: .visionPrescriptionType())], anchor: nil)
        let first = try await descriptor.result(for: store)
        #expect(Set(first.addedSamples.map(\.uuid)) == [glasses.uuid, contacts.uuid])
        let readGlasses = try #require(first.addedSamples.first { $0.uuid == glasses.uuid } as? HKGlassesPrescription)
        #expect(readGlasses.rightEye?.sphere.doubleValue(for: .diopter()) == -0.75)
        #expect(readGlasses.rightEye?.prism?.eye == .right)
        #expect(abs((readGlasses.rightEye?.prism?.angle.doubleValue(for: .degreeAngle()) ?? 0) - 15) < 1e-9)
        #expect(readGlasses.expirationDate == glasses.expirationDate && readGlasses.dateIssued == Samples.reference)
        let readContacts = try #require(first.addedSamples.first { $0.uuid == contacts.uuid } as? HKContactsPrescription)
        #expect(readContacts.brand == "Acme Daily" && readContacts.rightEye?.baseCurve?.doubleValue(for: .meterUnit(with: .milli)) == 8.6)

        try await store.delete(contacts)
        let next = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: .visionPrescriptionType())], anchor: first.newAnchor)
            .result(for: store)
        #expect(next.addedSamples.isEmpty)
        #expect(next.deletedObjects.map(\.uuid) == [contacts.uuid])
    }

    @Test("An app reads only the prescriptions the person chose; the others look like no data")
    func perObjectReadAuthorization() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let first = Self.glasses(issued: Samples.reference)
        let second = HKVisionPrescription(type: .contacts, dateIssued: Samples.reference.addingTimeInterval(86_400), expirationDate: nil,
                                          device: nil, metadata: nil)
        try await owner.save([first, second])
        let policy = PolicyFileAuthorizationProvider.Policy(apps: [:], perObjectReads: [
            "com.example.optician": [.init(types: [HKVisionPrescriptionTypeIdentifier], records: [first.uuid])],
        ])
        let app = TestStores.app(folder, bundle: "com.example.optician", provider: PolicyFileAuthorizationProvider(policy: policy))
        let type = HKObjectType.visionPrescriptionType()
        #expect(type.requiresPerObjectAuthorization())
        await #expect(throws: HKError.self) { try await app.requestAuthorization(toShare: [], read: [type]) }

        let query = HKSampleQueryDescriptor(predicates: [.sample(type: type)], sortDescriptors: [])
        #expect(try await query.result(for: app).isEmpty)
        try await app.requestPerObjectReadAuthorization(for: type, predicate: nil)
        #expect(try await query.result(for: app).map(\.uuid) == [first.uuid])
        #expect(try await HKSampleQueryDescriptor(predicates: [.sample(type: type, predicate: HKQuery.predicateForObject(with: second.uuid))],
                                                  sortDescriptors: []).result(for: app).isEmpty)

        // Asked again, the person turns the first one off: it is no longer readable.
        let denied = TestStores.app(folder, bundle: "com.example.optician", provider: PolicyFileAuthorizationProvider(policy: .init(apps: [:])))
        try await denied.requestPerObjectReadAuthorization(for: type, predicate: nil)
        #expect(try await query.result(for: denied).isEmpty)

        // The callback form, and a type that is not per-object.
        let handled: Bool = await withCheckedContinuation { continuation in
            app.requestPerObjectReadAuthorization(for: type, predicate: nil) { success, _ in continuation.resume(returning: success) }
        }
        #expect(handled)
        await #expect(throws: HKError.self) { try await app.requestPerObjectReadAuthorization(for: HKQuantityType(.stepCount), predicate: nil) }
    }

    @Test("An anchored query tells an app of a prescription's deletion only if the person chose it for the app or the app saved it")
    func perObjectDeletions() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let first = Self.glasses(issued: Samples.reference)
        let second = HKVisionPrescription(type: .contacts, dateIssued: Samples.reference.addingTimeInterval(86_400), expirationDate: nil,
                                          device: nil, metadata: nil)
        try await owner.save([first, second])
        let type = HKObjectType.visionPrescriptionType()
        let policy = PolicyFileAuthorizationProvider.Policy(apps: [:], perObjectReads: [
            "com.example.optician": [.init(types: [HKVisionPrescriptionTypeIdentifier], records: [first.uuid])],
        ])
        let chosen = TestStores.app(folder, bundle: "com.example.optician", provider: PolicyFileAuthorizationProvider(policy: policy))
        try await chosen.requestPerObjectReadAuthorization(for: type, predicate: nil)
        let stranger = TestStores.app(folder, bundle: "com.example.stranger", provider: PolicyFileAuthorizationProvider(policy: .init(apps: [:])))
        try await stranger.requestPerObjectReadAuthorization(for: type, predicate: nil)

        let chosenStart = try await chosen.runAnchoredQuery(type, anchor: nil)
        let strangerStart = try await stranger.runAnchoredQuery(type, anchor: nil)
        #expect(chosenStart.added.map(\.uuid) == [first.uuid])
        #expect(strangerStart.added.isEmpty)
        try await owner.delete([first, second])
        #expect(try await stranger.runAnchoredQuery(type, anchor: strangerStart.anchor).deleted.isEmpty)
        #expect(try await chosen.runAnchoredQuery(type, anchor: chosenStart.anchor).deleted.map(\.uuid) == [first.uuid])
        #expect(Set(try await owner.runAnchoredQuery(type, anchor: strangerStart.anchor).deleted.map(\.uuid)) == [first.uuid, second.uuid])
    }
}

/// A value behind a lock, for handlers.
final class ClinicalLocked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
