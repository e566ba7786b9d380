import Foundation
import OpenHealthKit
import Testing

/// `HKQuery.predicateForElectrocardiograms(classification:)` and `(symptomsStatus:)` as their
/// documentation pages use them, compiled against `import OpenHealthKit` with only the import
/// changed (the owner saves the electrocardiograms the Apple Watch would).
@Suite("HealthKit electrocardiogram predicate code, ported by changing the import")
struct PortedElectrocardiogramPredicateCodeTests {
    @Test("predicateForElectrocardiograms(classification:) and (symptomsStatus:) match the sealed classification and symptoms")
    func classificationAndSymptomsPredicates() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ported-ecg-predicates-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let location = HKHealthStore.Location.file(folder.appendingPathComponent("health.sqlite"))
        let key = StoreKey.keyFile(folder.appendingPathComponent("health.key"))
        let healthStore = HKHealthStore(configuration: .init(location: location, key: key))
        let owner = HKHealthStore(configuration: .init(location: location, key: key, source: HKSource(name: "ECG", bundleIdentifier: "com.apple.NanoHeartRhythm"),
                                                       role: .owner))
        let recorded = Date(timeIntervalSince1970: 1_700_000_000)
        let recordings: [(HKElectrocardiogram.Classification, HKElectrocardiogram.SymptomsStatus)] =
            [(.sinusRhythm, .none), (.atrialFibrillation, .present), (.atrialFibrillation, .none), (.inconclusiveLowHeartRate, .present)]
        for (index, (classification, symptoms)) in recordings.enumerated() {
            let start = recorded.addingTimeInterval(Double(index) * 60)
            try await owner.save(try HKElectrocardiogram(start: start, end: start.addingTimeInterval(1), classification: classification,
                                                         symptomsStatus: symptoms, averageHeartRate: nil,
                                                         samplingFrequency: HKQuantity(unit: .hertz(), doubleValue: 512),
                                                         microvolts: [.appleWatchSimilarToLeadI: (0..<512).map { Float($0) }], device: nil, metadata: nil))
        }
        try await healthStore.requestAuthorization(toShare: [], read: [HKObjectType.electrocardiogramType()])

        let forClassification = HKQuery.predicateForElectrocardiograms(classification: .atrialFibrillation)
        let forSymptomStatus = HKQuery.predicateForElectrocardiograms(symptomsStatus: .present)

        let atrialFibrillation = try await HKSampleQueryDescriptor(predicates: [.electrocardiogram(forClassification)],
                                                                   sortDescriptors: [SortDescriptor(\.startDate)]).result(for: healthStore)
        #expect(atrialFibrillation.map(\.classification) == [.atrialFibrillation, .atrialFibrillation])
        #expect(atrialFibrillation.map(\.symptomsStatus) == [.present, .none])

        let withSymptoms = try await HKSampleQueryDescriptor(predicates: [.electrocardiogram(forSymptomStatus)],
                                                             sortDescriptors: [SortDescriptor(\.startDate)]).result(for: healthStore)
        #expect(withSymptoms.map(\.classification) == [.atrialFibrillation, .inconclusiveLowHeartRate])

        // Both at once, and a limit applied after the sealed fields are decided.
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [forClassification, forSymptomStatus])
        let firstBoth = try await HKSampleQueryDescriptor(predicates: [.electrocardiogram(both)], sortDescriptors: [], limit: 1)
            .result(for: healthStore)
        #expect(firstBoth.map(\.symptomsStatus) == [.present])
        #expect(firstBoth.map(\.classification) == [.atrialFibrillation])

        // The callback query with the same predicate.
        let count: Int = await withCheckedContinuation { completion in
            let query = HKSampleQuery(sampleType: HKObjectType.electrocardiogramType(), predicate: forClassification,
                                      limit: HKObjectQueryNoLimit, sortDescriptors: nil) { _, samples, _ in
                completion.resume(returning: samples?.count ?? -1)
            }
            healthStore.execute(query)
        }
        #expect(count == 2)
    }
}
