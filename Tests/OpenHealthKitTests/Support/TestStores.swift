import TestSupport
import Foundation
@testable import OpenHealthKit

/// A temporary folder removed when the value is released.
final class TemporaryFolder: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ohk-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var database: URL { url.appendingPathComponent("health.sqlite") }
    var keyFile: URL { url.appendingPathComponent("health.key") }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Builds stores the way the tests need them.
enum TestStores {
    /// A store owned by its user: no authorization needed.
    static func owner(_ folder: TemporaryFolder, key: StoreKey? = nil) -> HKHealthStore {
        HKHealthStore(configuration: .init(location: .file(folder.database), key: key ?? .keyFile(folder.keyFile),
                                           source: HKSource(name: "Owner", bundleIdentifier: "org.example.owner"), role: .owner))
    }

    /// An app on the same store, deciding authorization with `provider`.
    static func app(_ folder: TemporaryFolder, bundle: String, name: String? = nil,
                    provider: any AuthorizationProvider = OwnerConsentAuthorizationProvider()) -> HKHealthStore {
        HKHealthStore(configuration: .init(location: .file(folder.database), key: .keyFile(folder.keyFile),
                                           source: HKSource(name: name ?? bundle, bundleIdentifier: bundle),
                                           authorizationProvider: provider))
    }

    /// An in-memory owner store.
    static func memory() -> HKHealthStore {
        HKHealthStore(configuration: .init(location: .inMemory, source: HKSource(name: "Memory", bundleIdentifier: "org.example.memory"),
                                           role: .owner))
    }
}

/// Sample builders.
enum Samples {
    static let bpm = HKUnit.count().unitDivided(by: .minute())
    static let reference = Date(timeIntervalSince1970: 1_763_000_000) // 2025-11-13

    static func steps(_ count: Double, at offset: TimeInterval, minutes: Double = 10, metadata: [String: Any]? = nil) -> HKQuantitySample {
        let start = reference.addingTimeInterval(offset)
        return HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: count),
                                start: start, end: start.addingTimeInterval(minutes * 60), metadata: metadata)
    }

    static func heartRate(_ value: Double, at offset: TimeInterval, seconds: Double = 0, metadata: [String: Any]? = nil) -> HKQuantitySample {
        let start = reference.addingTimeInterval(offset)
        return HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: bpm, doubleValue: value),
                                start: start, end: start.addingTimeInterval(seconds), metadata: metadata)
    }

    static func sleep(_ value: HKCategoryValueSleepAnalysis, at offset: TimeInterval, minutes: Double) -> HKCategorySample {
        let start = reference.addingTimeInterval(offset)
        return HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: value.rawValue, start: start,
                                end: start.addingTimeInterval(minutes * 60))
    }
}

extension HKHealthStore {
    /// Runs a callback sample query and returns its results.
    func runSampleQuery(_ type: HKSampleType, predicate: NSPredicate? = nil, limit: Int = HKObjectQueryNoLimit,
                        sort: [NSSortDescriptor]? = nil) async throws -> [HKSample] {
        try await withCheckedThrowingContinuation { continuation in
            execute(HKSampleQuery(sampleType: type, predicate: predicate, limit: limit, sortDescriptors: sort) { _, samples, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: samples ?? []) }
            })
        }
    }

    /// Runs a callback anchored query once.
    func runAnchoredQuery(_ type: HKSampleType, predicate: NSPredicate? = nil, anchor: HKQueryAnchor?, limit: Int = HKObjectQueryNoLimit)
        async throws -> (added: [HKSample], deleted: [HKDeletedObject], anchor: HKQueryAnchor) {
        try await withCheckedThrowingContinuation { continuation in
            execute(HKAnchoredObjectQuery(type: type, predicate: predicate, anchor: anchor, limit: limit) { _, added, deleted, anchor, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let anchor {
                    continuation.resume(returning: (added ?? [], deleted ?? [], anchor))
                } else {
                    continuation.resume(throwing: HKError(.errorNoData, "no anchor"))
                }
            })
        }
    }

    /// Runs a callback statistics query.
    func runStatisticsQuery(_ type: HKQuantityType, predicate: NSPredicate? = nil, options: HKStatisticsOptions) async throws -> HKStatistics {
        try await withCheckedThrowingContinuation { continuation in
            execute(HKStatisticsQuery(quantityType: type, quantitySamplePredicate: predicate, options: options) { _, statistics, error in
                if let statistics { continuation.resume(returning: statistics) } else {
                    continuation.resume(throwing: error ?? HKError(.errorNoData, "no statistics"))
                }
            })
        }
    }

    /// Runs a callback source query.
    func runSourceQuery(_ type: HKSampleType, predicate: NSPredicate? = nil) async throws -> Set<HKSource> {
        try await withCheckedThrowingContinuation { continuation in
            execute(HKSourceQuery(sampleType: type, samplePredicate: predicate) { _, sources, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: sources ?? []) }
            })
        }
    }
}

