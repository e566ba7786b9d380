import Foundation
import OpenHealthKit
import Testing

/// Apple's documentation snippets for electrocardiograms and vision prescriptions, changed only
/// where Swift 6 strict concurrency requires it (results leave handlers through continuations)
/// and where a test needs data (the owner saves the electrocardiogram the Apple Watch would).
@Suite("HealthKit clinical measurement code, ported by changing the import")
struct PortedClinicalMeasurementsCodeTests {
    private static func stores() -> (app: HKHealthStore, owner: HKHealthStore, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ported-clinical-\(UUID().uuidString)")
        let location = HKHealthStore.Location.file(folder.appendingPathComponent("health.sqlite"))
        let key = StoreKey.keyFile(folder.appendingPathComponent("health.key"))
        let app = HKHealthStore(configuration: .init(location: location, key: key))
        let owner = HKHealthStore(configuration: .init(location: location, key: key, source: HKSource(name: "ECG", bundleIdentifier: "com.apple.NanoHeartRhythm"),
                                                       role: .owner))
        return (app, owner, folder)
    }

    @Test("HKElectrocardiogram: query the samples, then each one's voltages (HKElectrocardiogramQuery)")
    func electrocardiogramSamplesAndVoltages() async throws {
        let (healthStore, owner, folder) = Self.stores()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorded = Date(timeIntervalSince1970: 1_700_000_000)
        try await owner.save(try HKElectrocardiogram(start: recorded, end: recorded.addingTimeInterval(1), classification: .sinusRhythm,
                                                     symptomsStatus: .none, averageHeartRate: nil,
                                                     samplingFrequency: HKQuantity(unit: .hertz(), doubleValue: 512),
                                                     microvolts: [.appleWatchSimilarToLeadI: (0..<512).map { Float($0) }], device: nil, metadata: nil))
        try await healthStore.requestAuthorization(toShare: [], read: [HKObjectType.electrocardiogramType()])

        // Create the electrocardiogram sample type.
        let ecgType = HKObjectType.electrocardiogramType()

        // Query for electrocardiogram samples
        let ecgSamples: [HKElectrocardiogram] = await withCheckedContinuation { completion in
            let ecgQuery = HKSampleQuery(sampleType: ecgType,
                                         predicate: nil,
                                         limit: HKObjectQueryNoLimit,
                                         sortDescriptors: nil) { (query, samples, error) in
                if let error = error {
                    // Handle the error here.
                    Issue.record("*** An error occurred \(error.localizedDescription) ***")
                }

                guard let ecgSamples = samples as? [HKElectrocardiogram] else {
                    completion.resume(returning: [])
                    return
                }

                completion.resume(returning: ecgSamples)
            }

            // Execute the query.
            healthStore.execute(ecgQuery)
        }
        let ecgSample = try #require(ecgSamples.first)
        #expect(ecgSample.classification == .sinusRhythm && ecgSample.numberOfVoltageMeasurements == 512)

        // Create a query for the voltage measurements
        let voltages: [Double] = await withCheckedContinuation { completion in
            let collected = Collected()
            let voltageQuery = HKElectrocardiogramQuery(ecgSample) { (query, result) in
                switch(result) {

                case .measurement(let measurement):
                    if let voltageQuantity = measurement.quantity(for: .appleWatchSimilarToLeadI) {
                        // Do something with the voltage quantity here.
                        collected.append(voltageQuantity.doubleValue(for: .voltUnit(with: .micro)))
                    }

                case .done:
                    // No more voltages. Finish processing the existing voltages.
                    completion.resume(returning: collected.values)

                case .error(let error):
                    // Handle the error here.
                    Issue.record("\(error)")
                    completion.resume(returning: [])
                }
            }

            // Execute the query.
            healthStore.execute(voltageQuery)
        }
        #expect(voltages == (0..<512).map(Double.init))

        // HKElectrocardiogramQueryDescriptor
        let myElectrocardiogram = ecgSample
        let store = healthStore
        // Create the descriptor.
        let ecgDescriptor = HKElectrocardiogramQueryDescriptor(myElectrocardiogram)

        // Get the AsyncSequence that returns individual voltage measurements.
        let voltageCollection = ecgDescriptor.results(for: store)

        var count = 0
        for try await voltage in voltageCollection {
            // Process each voltage measurement here.
            _ = voltage.timeSinceSampleStart
            count += 1
        }
        #expect(count == 512)
    }

    @Test("HKGlassesPrescription and HKVisionPrism: create, authorize sharing, save")
    func glassesPrescription() async throws {
        let (store, _, folder) = Self.stores()
        defer { try? FileManager.default.removeItem(at: folder) }

        // Create the prescription data type.
        let visionPrescriptionType = HKObjectType.visionPrescriptionType()

        // Request authorization to save vision prescription samples.
        let authorized: Bool = await withCheckedContinuation { completion in
            store.requestAuthorization(toShare: [visionPrescriptionType],
                                       read: []) { success, error in
                if let error {
                    // Handle errors here.
                    Issue.record("*** An error occurred while requesting authorization: \(error.localizedDescription) ***")
                }
                completion.resume(returning: success)
            }
        }
        #expect(authorized)

        // The correction for farsightedness.
        let sphere = HKQuantity(unit: .diopter(), doubleValue: -0.75)

        // The corrections for astigmatism.
        let cylinder = HKQuantity(unit: .diopter(), doubleValue: 1.25)
        let axis = HKQuantity(unit: .degreeAngle(), doubleValue: 90.0)

        // The correction for eye alignment.
        let prismQuantity = HKQuantity(unit: .prismDiopter(), doubleValue: +0.25)
        let angle = HKQuantity(unit: .degreeAngle(), doubleValue: 15.0)
        let prism = HKVisionPrism(amount: prismQuantity,
                                  angle: angle,
                                  eye: .right)

        // The prescription for the right eye.
        let glassesRightEye = HKGlassesLensSpecification(sphere: sphere,
                                                         cylinder: cylinder,
                                                         axis: axis,
                                                         addPower: nil,
                                                         vertexDistance: nil,
                                                         prism: prism,
                                                         farPupillaryDistance: nil,
                                                         nearPupillaryDistance: nil)
        let glassesLeftEye = HKGlassesLensSpecification(sphere: sphere, cylinder: nil, axis: nil, addPower: nil, vertexDistance: nil,
                                                        prism: nil, farPupillaryDistance: nil, nearPupillaryDistance: nil)

        let expirationDate = Calendar.current.date(byAdding: .year, value: 1, to: Date())
        let glassesPrescription = HKGlassesPrescription(rightEyeSpecification: glassesRightEye,
                                                        leftEyeSpecification: glassesLeftEye,
                                                        dateIssued: Date(),
                                                        expirationDate: expirationDate,
                                                        device: nil,
                                                        metadata: nil)
        try await store.save(glassesPrescription)

        // Create a minimal prescription sample that just holds an image attachment.
        let prescription = HKVisionPrescription(type: .glasses,
                                                dateIssued: Date(),
                                                expirationDate: nil,
                                                device: nil,
                                                metadata: nil)
        try await store.save(prescription)

        // The app reads its own prescriptions; others only once the person chooses them.
        try await store.requestPerObjectReadAuthorization(for: visionPrescriptionType, predicate: nil)
        let mine = try await HKSampleQueryDescriptor(predicates: [.sample(type: visionPrescriptionType)], sortDescriptors: []).result(for: store)
        #expect(Set(mine.map(\.uuid)) == [glassesPrescription.uuid, prescription.uuid])
    }
}

/// Values a handler collects.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Double] = []
    func append(_ value: Double) { lock.lock(); stored.append(value); lock.unlock() }
    var values: [Double] { lock.lock(); defer { lock.unlock() }; return stored }
}
