import Foundation
import OpenHealthKit
import Testing

@Suite("Saving under other source revisions (owner import)")
struct SaveUnderSourceRevisionTests {
    private static func revision(_ name: String, _ version: String) -> HKSourceRevision {
        HKSourceRevision(source: HKSource(name: name, bundleIdentifier: "import.\(name)"), version: version, productType: nil,
                         operatingSystemVersion: OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0))
    }

    private static func steps(_ count: Double, sync: String? = nil) -> HKQuantitySample {
        let start = Date(timeIntervalSince1970: 1_795_132_800)
        let metadata: [String: Any]? = sync.map { [HKMetadataKeySyncIdentifier: $0, HKMetadataKeySyncVersion: 1] }
        return HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: count),
                                start: start, end: start.addingTimeInterval(60), metadata: metadata)
    }

    @Test("Each sample keeps its own source and version; sync identifiers are scoped to each source")
    func revisions() async throws {
        let store = HKHealthStore(configuration: .init(location: .inMemory, role: .owner))
        let phone = Self.revision("Phone", "14.2")
        let watch = Self.revision("Watch", "7.0")
        try await store.save([Self.steps(1), Self.steps(2, sync: "same"), Self.steps(3, sync: "same")], recordedAs: [phone, phone, watch])
        // Same identifier and version again: dropped, as HealthKit drops it.
        try await store.save([Self.steps(4, sync: "same")], recordedAs: [watch])
        let samples = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))],
                                                        sortDescriptors: []).result(for: store)
        let byValue = Dictionary(uniqueKeysWithValues: samples.map { ($0.quantity.doubleValue(for: .count()), $0.sourceRevision) })
        #expect(byValue.count == 3)
        #expect(byValue[1]?.source.name == "Phone" && byValue[1]?.version == "14.2")
        #expect(byValue[2]?.source.bundleIdentifier == "import.Phone")
        #expect(byValue[3]?.source.name == "Watch" && byValue[3]?.version == "7.0")
    }

    @Test("Apps may not save under other sources; one revision per object")
    func refusals() async throws {
        let app = HKHealthStore(configuration: .init(location: .inMemory, role: .app))
        await #expect(throws: HKError.self) { try await app.save([Self.steps(1)], recordedAs: [Self.revision("Phone", "1")]) }
        let owner = HKHealthStore(configuration: .init(location: .inMemory, role: .owner))
        await #expect(throws: HKError.self) { try await owner.save([Self.steps(1)], recordedAs: []) }
    }
}
