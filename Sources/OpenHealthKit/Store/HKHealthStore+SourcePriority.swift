import Foundation

// The Health app's "Data Sources & Access" order (OpenHealthKit only; HealthKit leaves it to
// the person in the Health app).

extension HKHealthStore {
    /// The order in which statistics of `type` merge sources, highest priority first: the
    /// owner's order, then sources it does not name by default (a watch, then a phone, then
    /// other devices, then apps; within each, the first to save comes first). Owner only.
    ///
    /// Cumulative statistics take, for each stretch of time, only the samples of the
    /// highest-priority source that has one covering it, so steps counted by both a phone and a
    /// watch are not counted twice. `separateBySource` still reports each source's own figures.
    public func sourcePriority(for type: HKQuantityType) throws -> [HKSource] {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may read the source priority")
        }
        return try engine.database().effectiveSources(type: type.identifier)
    }

    /// Orders the sources of `type`, highest priority first (owner only). Sources not listed
    /// keep the default order after these; an empty list restores the default order entirely.
    public func setSourcePriority(_ sources: [HKSource], for type: HKQuantityType) throws {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may order sources")
        }
        try engine.database().setSourcePriority(type: type.identifier, bundleIdentifiers: sources.map(\.bundleIdentifier))
    }
}
