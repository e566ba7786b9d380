import Foundation
import Testing
import OpenHealthKit
import TestSupport

/// `sampleTypesWithSamples()`: the types the store holds samples of, found without a query per
/// known type, and the newest sample per listed type equal to asking every known type.
@Suite("Stored sample types: the types holding samples, the same newest samples as a query per type")
struct StoredSampleTypesTests {
    static func owner() throws -> HKHealthStore {
        let store = HKHealthStore(configuration: .init(location: .inMemory, source: HKSource(name: "Owner", bundleIdentifier: "org.example.owner"),
                                                       role: .owner))
        try store.open()
        return store
    }

    static func newest(of types: [HKSampleType], in store: HKHealthStore) async throws -> [UUID] {
        var newest: [UUID] = []
        for type in types {
            let query = HKSampleQueryDescriptor(predicates: [.sample(type: type)],
                                                sortDescriptors: [SortDescriptor(\HKSample.startDate, order: .reverse)], limit: 1)
            if let sample = try await query.result(for: store).first { newest.append(sample.uuid) }
        }
        return newest
    }

    /// Quantities, a category, a correlation with members, a workout; body mass saved then
    /// deleted (no samples left), blood glucose never saved.
    static func mixedStore() async throws -> HKHealthStore {
        let store = try owner()
        let start = Samples.reference
        func at(_ minutes: Double) -> Date { start.addingTimeInterval(minutes * 60) }
        var samples: [HKSample] = []
        for minute in 0..<30 {
            samples.append(HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: Samples.bpm, doubleValue: 60 + Double(minute)),
                                            start: at(Double(minute)), end: at(Double(minute))))
        }
        samples.append(HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 420),
                                        start: at(5), end: at(15)))
        samples.append(HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: HKCategoryValueSleepAnalysis.asleepCore.rawValue,
                                        start: at(-300), end: at(-60)))
        let systolic = HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic), quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 121),
                                        start: at(3), end: at(3))
        let diastolic = HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic), quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 79),
                                         start: at(3), end: at(3))
        samples.append(HKCorrelation(type: HKCorrelationType(.bloodPressure), start: at(3), end: at(3), objects: [systolic, diastolic]))
        samples.append(HKWorkout(activityType: .running, start: at(40), end: at(70)))
        let weight = HKQuantitySample(type: HKQuantityType(.bodyMass), quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 71.5),
                                      start: at(1), end: at(1))
        samples.append(weight)
        try await store.save(samples)
        try await store.delete(weight)
        return store
    }

    @Test("A mixed store lists the types it holds (not the deleted or never saved ones), in allSampleTypes order")
    func listsStoredTypes() async throws {
        let store = try await Self.mixedStore()
        let listed = try await store.sampleTypesWithSamples().map(\.identifier)
        let expected: Set<String> = [HKQuantityTypeIdentifier.heartRate.rawValue, HKQuantityTypeIdentifier.stepCount.rawValue,
                                     HKCategoryTypeIdentifier.sleepAnalysis.rawValue, HKCorrelationTypeIdentifier.bloodPressure.rawValue,
                                     HKQuantityTypeIdentifier.bloodPressureSystolic.rawValue, HKQuantityTypeIdentifier.bloodPressureDiastolic.rawValue,
                                     HKWorkoutType().identifier]
        #expect(Set(listed) == expected)
        let order = HKObjectType.allSampleTypes.map(\.identifier).filter { expected.contains($0) }
        #expect(listed == order)
        #expect(!listed.contains(HKQuantityTypeIdentifier.bodyMass.rawValue))
        #expect(!listed.contains(HKQuantityTypeIdentifier.bloodGlucose.rawValue))
    }

    @Test("The newest sample per listed type equals the newest per known type (every type queried)")
    func newestMatchesPerTypeQuery() async throws {
        let store = try await Self.mixedStore()
        let everyType = try await Self.newest(of: HKObjectType.allSampleTypes, in: store)
        let listedOnly = try await Self.newest(of: try await store.sampleTypesWithSamples(), in: store)
        #expect(listedOnly == everyType)
        #expect(everyType.count == 7)
    }

    @Test("An empty store lists no types; an app may not ask")
    func emptyAndApp() async throws {
        #expect(try await Self.owner().sampleTypesWithSamples().isEmpty)
        let app = HKHealthStore(configuration: .init(location: .inMemory, source: HKSource(name: "App", bundleIdentifier: "com.example.app")))
        try app.open()
        await #expect(throws: HKError.self) { try await app.sampleTypesWithSamples() }
    }
}
