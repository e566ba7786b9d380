import Foundation
import OpenHealthKit

/// What the store holds, found through the public query API: the newest sample of every type
/// that has one.
enum StoreCatalog {
    /// The newest sample of each type that holds one, in `HKObjectType.allSampleTypes` order:
    /// only the types the store lists as holding samples are queried.
    static func newestSamples(in store: HKHealthStore) async throws -> [HKSample] {
        var newest: [HKSample] = []
        for type in try await store.sampleTypesWithSamples() {
            let query = HKSampleQueryDescriptor(predicates: [.sample(type: type)],
                                                sortDescriptors: [SortDescriptor(\HKSample.startDate, order: .reverse)], limit: 1)
            if let sample = try await query.result(for: store).first { newest.append(sample) }
        }
        return newest
    }

    /// The path of a type's page.
    static func href(_ type: HKObjectType) -> String { "/browse/\(type.identifier)" }
}
