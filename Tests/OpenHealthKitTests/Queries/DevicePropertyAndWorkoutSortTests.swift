import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

/// HealthKit's device-property predicate, its workout sort keys, the preferred-units notification
/// and the global constants apps name (predicate key paths, sort keys, identifiers).
@Suite("Device properties, workout sort keys and HealthKit's constants")
struct DevicePropertyAndWorkoutSortTests {
    static let watch = HKDevice(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,1",
                                firmwareVersion: nil, softwareVersion: "10.1", localIdentifier: nil, udiDeviceIdentifier: nil)
    static let strap = HKDevice(name: "H10", manufacturer: "Polar", model: "H10", hardwareVersion: nil, firmwareVersion: "3.1.1",
                                softwareVersion: nil, localIdentifier: "strap-1", udiDeviceIdentifier: "(01)00643169007222")

    /// Heart rates 60… from the watch, the strap and no device, in that turn.
    private func heartRates(_ store: HKHealthStore) async throws -> [HKQuantitySample] {
        let devices: [HKDevice?] = [Self.watch, Self.strap, nil, Self.watch, Self.strap, nil]
        let samples = devices.enumerated().map { index, device in
            let start = Samples.reference.addingTimeInterval(Double(index) * 60)
            return HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: Samples.bpm, doubleValue: 60 + Double(index)),
                                    start: start, end: start, device: device, metadata: nil)
        }
        try await store.save(samples)
        return samples
    }

    private func values(_ samples: [HKSample]) -> [Double] {
        samples.compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: Samples.bpm) }
    }

    @Test("predicateForObjects(withDeviceProperty:allowedValues:) matches a device property against its values; no device or an unknown key matches nothing")
    func deviceProperty() async throws {
        let store = TestStores.memory()
        _ = try await heartRates(store)
        let type = HKQuantityType(.heartRate)
        let sort = [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]
        func matching(_ key: String, _ values: Set<String>) async throws -> [Double] {
            self.values(try await store.runSampleQuery(type, predicate: HKQuery.predicateForObjects(withDeviceProperty: key, allowedValues: values),
                                                       sort: sort))
        }
        #expect(try await matching(HKDevicePropertyKeyManufacturer, ["Apple Inc."]) == [60, 63])
        #expect(try await matching(HKDevicePropertyKeyManufacturer, ["Apple Inc.", "Polar"]) == [60, 61, 63, 64])
        #expect(try await matching(HKDevicePropertyKeyHardwareVersion, ["Watch6,1"]) == [60, 63])
        #expect(try await matching(HKDevicePropertyKeyFirmwareVersion, ["3.1.1"]) == [61, 64])
        #expect(try await matching(HKDevicePropertyKeyLocalIdentifier, ["strap-1"]) == [61, 64])
        #expect(try await matching(HKDevicePropertyKeyUDIDeviceIdentifier, ["(01)00643169007222"]) == [61, 64])
        #expect(try await matching(HKDevicePropertyKeyName, ["H10", "Apple Watch"]) == [60, 61, 63, 64])
        #expect(try await matching(HKDevicePropertyKeyModel, ["Watch"]) == [60, 63])
        #expect(try await matching(HKDevicePropertyKeySoftwareVersion, ["10.1"]) == [60, 63])
        // Values are matched exactly; an empty set, an unknown key and a property the device lacks match nothing.
        #expect(try await matching(HKDevicePropertyKeyManufacturer, ["apple inc."]).isEmpty)
        #expect(try await matching(HKDevicePropertyKeyManufacturer, []).isEmpty)
        #expect(try await matching("HKDevicePropertyColour", ["Apple Inc."]).isEmpty)
        #expect(try await matching(HKDevicePropertyKeyFirmwareVersion, ["10.1"]).isEmpty)
        // Combined: not the watch, and after the first three samples.
        let notWatch = NSCompoundPredicate(notPredicateWithSubpredicate:
            HKQuery.predicateForObjects(withDeviceProperty: HKDevicePropertyKeyManufacturer, allowedValues: ["Apple Inc."]))
        let later = HKQuery.predicateForSamples(withStart: Samples.reference.addingTimeInterval(150), end: nil)
        let combined = try await store.runSampleQuery(type, predicate: NSCompoundPredicate(andPredicateWithSubpredicates: [notWatch, later]),
                                                      sort: sort)
        #expect(values(combined) == [64, 65])
        // The statistics engine applies it too.
        let statistics = try await store.runStatisticsQuery(
            type, predicate: HKQuery.predicateForObjects(withDeviceProperty: HKDevicePropertyKeyManufacturer, allowedValues: ["Polar"]),
            options: .discreteMax)
        #expect(statistics.maximumQuantity()?.doubleValue(for: Samples.bpm) == 64)
    }

    /// Four runs: durations 30, 50, 20 and 40 minutes; distances 5 km, none, 3 km, 8 km; energy
    /// 300, 500, 200 and none (kcal).
    private func workouts(_ store: HKHealthStore) async throws -> [HKWorkout] {
        let plan: [(minutes: Double, meters: Double?, kilocalories: Double?)] = [(30, 5000, 300), (50, nil, 500), (20, 3000, 200), (40, 8000, nil)]
        let runs = plan.enumerated().map { index, run in
            let start = Samples.reference.addingTimeInterval(Double(index) * 86_400)
            return HKWorkout(activityType: .running, start: start, end: start.addingTimeInterval(run.minutes * 60), duration: run.minutes * 60,
                             totalEnergyBurned: run.kilocalories.map { HKQuantity(unit: .kilocalorie(), doubleValue: $0) },
                             totalDistance: run.meters.map { HKQuantity(unit: .meter(), doubleValue: $0) }, metadata: nil)
        }
        try await store.save(runs)
        return runs
    }

    private func minutes(_ samples: [HKSample]) -> [Double] {
        samples.compactMap { ($0 as? HKWorkout).map { $0.duration / 60 } }
    }

    @Test("HealthKit's workout sort keys sort by duration and totals (a missing total first), before the limit applies")
    func workoutSortKeys() async throws {
        let store = TestStores.memory()
        _ = try await workouts(store)
        let type = HKWorkoutType.workoutType()
        let longest = try await store.runSampleQuery(type, limit: 2, sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierDuration, ascending: false)])
        #expect(minutes(longest) == [50, 40])
        let shortest = try await store.runSampleQuery(type, sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierDuration, ascending: true)])
        #expect(minutes(shortest) == [20, 30, 40, 50])
        let byDistance = try await store.runSampleQuery(type, sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierTotalDistance, ascending: true)])
        #expect(minutes(byDistance) == [50, 20, 30, 40])
        let farthest = try await store.runSampleQuery(type, limit: 1,
                                                      sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierTotalDistance, ascending: false)])
        #expect(minutes(farthest) == [40])
        let byEnergy = try await store.runSampleQuery(type, sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierTotalEnergyBurned, ascending: false)])
        #expect(minutes(byEnergy) == [50, 30, 20, 40])
        // Ties (no strokes or flights anywhere) keep the next key's order.
        let tied = try await store.runSampleQuery(type, sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierTotalFlightsClimbed, ascending: true),
                                                               NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)])
        #expect(minutes(tied) == [40, 20, 50, 30])
        let strokes = try await store.runSampleQuery(type, sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierTotalSwimmingStrokeCount,
                                                                                   ascending: true)])
        #expect(minutes(strokes) == [30, 50, 20, 40])
        // The async descriptor sorts by any key path of the sample.
        let descriptor = HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: [SortDescriptor(\.duration, order: .reverse)], limit: 3)
        #expect(try await descriptor.result(for: store).map { $0.duration / 60 } == [50, 40, 30])
    }

    @Test("A workout sort key on a query of other samples leaves them in the order of the other keys")
    func workoutSortKeyOnOtherSamples() async throws {
        let store = TestStores.memory()
        _ = try await heartRates(store)
        let sorted = try await store.runSampleQuery(HKQuantityType(.heartRate), limit: 3,
                                                    sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierDuration, ascending: true),
                                                           NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)])
        #expect(values(sorted) == [65, 64, 63])
    }

    @Test("setPreferredUnit posts HKUserPreferencesDidChange with the store as its object")
    func preferencesNotification() async throws {
        let store = TestStores.memory()
        let other = TestStores.memory()
        let heard = Inbox<String>()
        let observer = NotificationCenter.default.addObserver(forName: .HKUserPreferencesDidChange, object: store, queue: nil) { note in
            heard.append(note.name.rawValue)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try other.setPreferredUnit(.pound(), for: HKQuantityType(.bodyMass))
        #expect(heard.values.isEmpty, "another store's change is not this store's notification")
        try store.setPreferredUnit(.pound(), for: HKQuantityType(.bodyMass))
        #expect(heard.values == ["HKUserPreferencesDidChangeNotification"])
        #expect(throws: HKError.self) { try store.setPreferredUnit(.pound(), for: HKQuantityType(.stepCount)) }
        #expect(heard.values.count == 1, "a refused unit changes nothing and tells nobody")
    }

    @Test("HealthKit's global constants carry HealthKit's values")
    func constants() async throws {
        #expect(HKPredicateKeyPathUUID == "UUID")
        #expect(HKPredicateKeyPathQuantity == "quantity")
        #expect(HKPredicateKeyPathCategoryValue == "value")
        #expect(HKPredicateKeyPathWorkoutDuration == "duration")
        #expect(HKPredicateKeyPathWorkoutActivityType == "activityType")
        #expect(HKPredicateKeyPathClinicalRecordFHIRResourceType == "FHIRResource.resourceType")
        #expect(HKWorkoutSortIdentifierDuration == "HKWorkoutSortIdentifierDuration")
        #expect(HKDevicePropertyKeyManufacturer == "HKDevicePropertyManufacturer")
        #expect(HKDataTypeIdentifierStateOfMind == HKObjectType.stateOfMindType().identifier)
        #expect(HKSourceRevisionAnyOperatingSystem.majorVersion == 0 && HKSourceRevisionAnyOperatingSystem.patchVersion == 0)
        // The iOS 18.2 metadata key is a known key: saved on a workout and read back.
        let store = TestStores.memory()
        let start = Samples.reference
        let workout = HKWorkout(activityType: .yoga, start: start, end: start.addingTimeInterval(1200), duration: 1200, totalEnergyBurned: nil,
                                totalDistance: nil, metadata: [HKMetadataKeyAppleFitnessPlusCatalogIdentifier: "fitness-plus-123"])
        try await store.save(workout)
        let read = try await store.runSampleQuery(HKWorkoutType.workoutType())
        #expect(read.first?.metadata?[HKMetadataKeyAppleFitnessPlusCatalogIdentifier] as? String == "fitness-plus-123")
        #expect(MetadataKeyCatalog.all.contains(HKMetadataKeyAppleFitnessPlusCatalogIdentifier))
    }
}
