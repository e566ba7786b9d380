import Foundation
import OpenHealthKit

/// Which sync identifiers a store already holds, and at which version: what `health store
/// import` and `health demo` ask before saving, so that they can say what was already there.
/// The store keys a sync identifier by its type and the source that saved it, as its save does.
enum StoredSyncVersions {
    /// Identifiers per query (each one is a bound value of one SQL statement).
    static let chunkSize = 500

    /// The stored version of each of `identifiers` that `source` saved as a `type` sample (an
    /// identifier that is not stored is absent; a stored one without a version is `Int64.min`).
    static func of(_ identifiers: some Sequence<String>, type: HKSampleType, source: HKSource,
                   in store: HKHealthStore) async throws -> [String: Int64] {
        try await samples(identifiers, type: type, source: source, in: store).mapValues { sample in
            let stored = sample.metadata?[HKMetadataKeySyncVersion]
            return (stored as? Int).map(Int64.init) ?? (stored as? NSNumber)?.int64Value ?? Int64.min
        }
    }

    /// The stored sample of each of `identifiers` that `source` saved as a `type` sample, by
    /// sync identifier (the store keeps one sample per identifier, type and source).
    static func samples(_ identifiers: some Sequence<String>, type: HKSampleType, source: HKSource,
                        in store: HKHealthStore) async throws -> [String: HKSample] {
        let unique = Array(Set(identifiers))
        var found: [String: HKSample] = [:]
        for start in stride(from: 0, to: unique.count, by: chunkSize) {
            let chunk = Array(unique[start..<min(start + chunkSize, unique.count)])
            let predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
                HKQuery.predicateForObjects(from: source),
                HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncIdentifier, allowedValues: chunk),
            ])
            let samples = try await HKSampleQueryDescriptor(predicates: [.sample(type: type, predicate: predicate)], sortDescriptors: [])
                .result(for: store)
            for sample in samples {
                guard let identifier = sample.metadata?[HKMetadataKeySyncIdentifier] as? String else { continue }
                found[identifier] = sample
            }
        }
        return found
    }

    /// The stored versions of the sync identifiers `samples` carry, by type, as ``of(_:type:source:in:)`` gives them.
    static func of(_ samples: [HKSample], source: HKSource, in store: HKHealthStore) async throws -> [String: [String: Int64]] {
        var byType: [String: (HKSampleType, [String])] = [:]
        for sample in samples {
            guard let identifier = sample.metadata?[HKMetadataKeySyncIdentifier] as? String else { continue }
            byType[sample.sampleType.identifier, default: (sample.sampleType, [])].1.append(identifier)
        }
        var result: [String: [String: Int64]] = [:]
        for (identifier, (type, identifiers)) in byType {
            result[identifier] = try await of(identifiers, type: type, source: source, in: store)
        }
        return result
    }
}
