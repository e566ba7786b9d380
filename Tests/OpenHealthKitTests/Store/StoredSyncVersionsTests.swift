import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

/// `storedSyncVersions(of:)` answers an importer's "is this record stored already?" for whole runs of keys: each key
/// scoped to its type and source as a save scopes it, and a type the store has never held has nothing stored.
@Suite("Stored sync versions: each key looked up under its type and source", .timeLimit(.minutes(10)))
struct StoredSyncVersionsTests {
    static let revision = BulkWriteTests.revision

    @Test("Versions by key: the highest stored, nil under another type, another source, or a type never stored")
    func versionsByKey() async throws {
        let store = TestStores.owner(TemporaryFolder())
        let bundle = Self.revision.source.bundleIdentifier
        let saved = [
            QueuedSaveTests.steps("a", version: 3, value: 1),
            QueuedSaveTests.steps("b", version: 1, value: 2),
        ]
        _ = try await store.save(saved, recordedAs: [Self.revision, Self.revision])
        let steps = HKQuantityTypeIdentifier.stepCount.rawValue
        let versions = try await store.storedSyncVersions(of: [
            ("a", steps, bundle),
            ("b", steps, bundle),
            ("c", steps, bundle),
            // Same identifier, a type the store holds no sample of (it has no code): nothing stored.
            ("a", HKQuantityTypeIdentifier.heartRate.rawValue, bundle),
            ("a", steps, "org.example.other"),
            // Back to the first type after another one.
            ("a", steps, bundle),
        ])
        #expect(versions == [3, 1, nil, nil, nil, 3])
        // A heart rate stored later is found under its type.
        _ = try await store.save([HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: Samples.bpm, doubleValue: 60),
                                                   start: Samples.reference, end: Samples.reference,
                                                   metadata: [HKMetadataKeySyncIdentifier: "a", HKMetadataKeySyncVersion: 7])],
                                 recordedAs: [Self.revision])
        #expect(try await store.storedSyncVersions(of: [("a", HKQuantityTypeIdentifier.heartRate.rawValue, bundle)]) == [7])
    }
}
