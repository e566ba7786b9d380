import Foundation
import Testing
@testable import OpenHealthKit

@Suite("Correlation and source queries")
struct HKCorrelationAndSourceQueryTests {
    private func pressure(_ systolic: Double, _ diastolic: Double, at offset: TimeInterval) -> HKCorrelation {
        let date = Samples.reference.addingTimeInterval(offset)
        func member(_ type: HKQuantityTypeIdentifier, _ value: Double) -> HKQuantitySample {
            HKQuantitySample(type: HKQuantityType(type), quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: value),
                             start: date, end: date)
        }
        return HKCorrelation(type: HKCorrelationType(.bloodPressure), start: date, end: date,
                             objects: [member(.bloodPressureSystolic, systolic), member(.bloodPressureDiastolic, diastolic)])
    }

    @Test("Sample predicates select correlations by their members")
    func correlations() async throws {
        let store = TestStores.memory()
        try await store.save([pressure(118, 76, at: 0), pressure(142, 91, at: 3_600), pressure(125, 95, at: 7_200)])
        let high = HKQuery.predicateForQuantitySamples(with: .greaterThanOrEqualTo, quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 90))
        let found: [HKCorrelation] = try await withCheckedThrowingContinuation { continuation in
            store.execute(HKCorrelationQuery(type: HKCorrelationType(.bloodPressure), predicate: nil,
                                             samplePredicates: [HKQuantityType(.bloodPressureDiastolic): high]) { _, correlations, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: correlations ?? []) }
            })
        }
        let systolics = found.compactMap { ($0.objects(for: HKQuantityType(.bloodPressureSystolic)).first as? HKQuantitySample)?
            .quantity.doubleValue(for: .millimeterOfMercury()) }
        #expect(systolics == [142, 125])
        let all = try await HKCorrelationQueryDescriptor(predicate: .correlation(type: HKCorrelationType(.bloodPressure))).result(for: store)
        #expect(all.count == 3)
    }

    @Test("Source queries list the apps that saved matching samples")
    func sources() async throws {
        let folder = TemporaryFolder()
        let phone = TestStores.app(folder, bundle: "com.example.phone", name: "Phone")
        let watch = TestStores.app(folder, bundle: "com.example.watch", name: "Watch")
        for app in [phone, watch] {
            try await app.requestAuthorization(toShare: [HKQuantityType(.stepCount)], read: [HKQuantityType(.stepCount)])
        }
        try await phone.save(Samples.steps(1, at: 0))
        try await watch.save(Samples.steps(2, at: 7_200))
        #expect(try await phone.runSourceQuery(HKQuantityType(.stepCount)).map(\.name).sorted() == ["Phone", "Watch"])
        let late = HKQuery.predicateForSamples(withStart: Samples.reference.addingTimeInterval(3_600), end: nil)
        #expect(try await phone.runSourceQuery(HKQuantityType(.stepCount), predicate: late).map(\.name) == ["Watch"])
        let big = HKQuery.predicateForQuantitySamples(with: .greaterThan, quantity: HKQuantity(unit: .count(), doubleValue: 1))
        #expect(try await phone.runSourceQuery(HKQuantityType(.stepCount), predicate: big).map(\.name) == ["Watch"])
        let sources = try await HKSourceQueryDescriptor(predicate: .quantitySample(type: HKQuantityType(.stepCount))).result(for: watch)
        #expect(sources.map(\.bundleIdentifier) == ["com.example.phone", "com.example.watch"])
        #expect(try await phone.runSourceQuery(HKQuantityType(.heartRate)).isEmpty)
    }
}
