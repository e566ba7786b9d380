import Foundation

extension HKHealthStore {
    /// The SQL read scope for a type, after authorization.
    ///
    /// A correlation is authorized through its member types: SQL admits correlations when any
    /// member type may be visible, and ``CorrelationVisibility`` then keeps only those whose
    /// every member type the caller may read (or share, for its own correlations).
    func readScope(for type: HKObjectType) async throws -> ReadScope {
        guard let correlation = type as? HKCorrelationType, !engine.isOwner else {
            return try await engine.readScopeAsync(for: type.identifier)
        }
        var scopes: [ReadScope] = []
        for member in correlation.memberTypes { scopes.append(try await engine.readScopeAsync(for: member)) }
        if scopes.allSatisfy({ $0 == .nothing }) { return .nothing }
        return .everything
    }

    /// The per-row check for correlations; nil for other types and for the owner.
    func correlationVisibility(for type: HKObjectType) async throws -> CorrelationVisibility? {
        guard let correlation = type as? HKCorrelationType, !engine.isOwner else { return nil }
        var scopes: [String: ReadScope] = [:]
        for member in correlation.memberTypes { scopes[member] = try await engine.readScopeAsync(for: member) }
        return CorrelationVisibility(scopes: scopes)
    }

    /// Whether a change by `source` to samples of `type` is visible to the caller.
    func canSee(_ type: HKObjectType, source: String) -> Bool {
        if let correlation = type as? HKCorrelationType {
            return engine.isOwner || correlation.memberTypes.contains { engine.canSee(type: $0, source: source) }
        }
        return engine.canSee(type: type.identifier, source: source)
    }

    /// Whether `changes` touch `type` in a way the caller may see.
    func isVisibleChange(_ changes: StoreChangeSet, to type: HKObjectType) -> Bool {
        changes.sourcesByType[type.identifier]?.contains { canSee(type, source: $0) } ?? false
    }

    /// The fetch for one type and predicate, with authorization applied.
    func sampleFetch(type: HKObjectType, predicate: NSPredicate?, order: [SampleOrder] = [], limit: Int = 0) async throws
        -> (HealthDatabase, SampleFetch) {
        let database = try await engine.databaseAsync()
        // Per-object types (vision prescriptions): an app's own objects and those the person chose.
        let (node, scope, deletions) = try await perObjectRestriction(type, node: try HKQueryPredicate.node(from: predicate),
                                                                      scope: try await readScope(for: type))
        var fetch = SampleFetch(types: [type.identifier], predicate: SQLPredicate(node, cipher: database.cipher),
                                scope: scope, order: order, limit: limit)
        fetch.perObjectDeletions = deletions
        fetch.correlationVisibility = try await correlationVisibility(for: type)
        return (database, fetch)
    }

    /// Reads samples of one type. An order by a property SQL does not sort by (a workout's
    /// duration or totals) reads every match, then sorts and limits them.
    func readSamples(type: HKObjectType, predicate: NSPredicate?, order: [SampleOrder], limit: Int) async throws -> [HKSample] {
        guard order.contains(where: \.sortsAfterReading) else {
            let (database, fetch) = try await sampleFetch(type: type, predicate: predicate, order: order, limit: limit)
            return try await database.fetchSamples(fetch)
        }
        let (database, fetch) = try await sampleFetch(type: type, predicate: predicate, order: order, limit: 0)
        let sorted = SampleOrder.sorted(try await database.fetchSamples(fetch), by: order)
        return limit > 0 ? Array(sorted.prefix(limit)) : sorted
    }

    /// Reads samples for several descriptors, merged, sorted and limited.
    func readSamples(descriptors: [HKQueryDescriptor], order: [SampleOrder], limit: Int) async throws -> [HKSample] {
        var samples: [HKSample] = []
        var seen = Set<UUID>()
        for descriptor in descriptors {
            for sample in try await readSamples(type: descriptor.sampleType, predicate: descriptor.predicate, order: order, limit: limit)
            where seen.insert(sample.uuid).inserted {
                samples.append(sample)
            }
        }
        if descriptors.count > 1 {
            samples = SampleOrder.sorted(samples, by: order)
            if limit > 0, samples.count > limit { samples = Array(samples.prefix(limit)) }
        }
        return samples
    }
}

/// Which correlations a caller may see: those whose every member type it may read, or its own
/// when it may share those types.
struct CorrelationVisibility: Sendable {
    let scopes: [String: ReadScope]

    func admits(_ correlation: HKCorrelation) -> Bool {
        let source = correlation.sourceRevision.source.bundleIdentifier
        return correlation.objects.allSatisfy { scopes[$0.sampleType.identifier]?.admits(source: source) ?? false }
    }
}

extension SampleOrder {
    /// The orders NSSortDescriptors describe: start and end dates in SQL, any other key path
    /// (HealthKit's workout sort keys) once read. A sample that is not of the key path's root
    /// class has no value for it and sorts as a missing value does: first when ascending, last
    /// when descending, in the order of the next keys.
    static func from(_ descriptors: [NSSortDescriptor]?) -> [SampleOrder] {
        (descriptors ?? []).map { descriptor in
            let keyPath = descriptor.keyPath
            if keyPath == \HKSample.startDate { return SampleOrder(key: .startDate, ascending: descriptor.ascending) }
            if keyPath == \HKSample.endDate { return SampleOrder(key: .endDate, ascending: descriptor.ascending) }
            guard let root = type(of: keyPath).rootType as? AnyClass else {
                return SampleOrder(key: .startDate, ascending: descriptor.ascending)
            }
            // The descriptor compares in its own direction, so the order adds none.
            return SampleOrder(key: .other(SampleComparator { lhs, rhs in
                guard let missing = missingFirst(lhs.isKind(of: root), rhs.isKind(of: root)) else {
                    return descriptor.compare(lhs, to: rhs)
                }
                return descriptor.ascending ? missing : reversed(missing)
            }), ascending: true)
        }
    }

    /// How two samples compare in ascending order when either lacks the key (`has…` false): one
    /// without it before one with it, two without it equal; nil when both have it, so that
    /// their values decide.
    static func missingFirst(_ lhsHasKey: Bool, _ rhsHasKey: Bool) -> ComparisonResult? {
        switch (lhsHasKey, rhsHasKey) {
        case (true, true): return nil
        case (false, false): return .orderedSame
        case (false, true): return .orderedAscending
        case (true, false): return .orderedDescending
        }
    }

    /// `result` for the opposite direction.
    static func reversed(_ result: ComparisonResult) -> ComparisonResult {
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// `samples` in `orders`, ties keeping the order they had.
    static func sorted(_ samples: [HKSample], by orders: [SampleOrder]) -> [HKSample] {
        samples.enumerated().sorted { lhs, rhs in
            switch comparison(lhs.element, rhs.element, orders) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: return lhs.offset < rhs.offset
            }
        }.map(\.element)
    }

    /// How `lhs` compares with `rhs` by `orders`.
    static func comparison(_ lhs: HKSample, _ rhs: HKSample, _ orders: [SampleOrder]) -> ComparisonResult {
        for order in orders {
            let result: ComparisonResult
            switch order.key {
            case .startDate: result = lhs.startDate.compare(rhs.startDate)
            case .endDate: result = lhs.endDate.compare(rhs.endDate)
            case .other(let comparator): result = comparator.compare(lhs, rhs)
            }
            guard result != .orderedSame else { continue }
            return order.ascending ? result : reversed(result)
        }
        return .orderedSame
    }
}
