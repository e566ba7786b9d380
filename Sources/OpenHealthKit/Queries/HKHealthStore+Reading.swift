import Foundation

extension HKHealthStore {
    /// The read scope for a sample type, after authorization. A correlation is readable when
    /// its member types are (HealthKit authorizes correlations through their members).
    func readScope(for type: HKObjectType) throws -> ReadScope {
        if let correlation = type as? HKCorrelationType, let members = correlation.memberTypes, !engine.isOwner {
            let scopes = try members.map { try engine.readScope(for: $0) }
            if scopes.allSatisfy({ $0 == .everything }) { return .everything }
            if scopes.contains(.nothing) { return try engine.readScope(for: type.identifier) }
            return .sources([engine.bundleIdentifier])
        }
        return try engine.readScope(for: type.identifier)
    }

    /// The fetch for one type and predicate, with authorization applied.
    func sampleFetch(type: HKObjectType, predicate: NSPredicate?, order: [SampleOrder] = [], limit: Int = 0) throws
        -> (HealthDatabase, SampleFetch) {
        let database = try engine.database()
        let node = try HKQueryPredicate.node(from: predicate)
        let fetch = SampleFetch(types: [type.identifier], predicate: SQLPredicate(node, cipher: database.cipher),
                                scope: try readScope(for: type), order: order, limit: limit)
        return (database, fetch)
    }

    /// Reads samples of one type.
    func readSamples(type: HKObjectType, predicate: NSPredicate?, order: [SampleOrder], limit: Int) throws -> [HKSample] {
        let (database, fetch) = try sampleFetch(type: type, predicate: predicate, order: order, limit: limit)
        return try database.fetchSamples(fetch)
    }

    /// Reads samples for several descriptors, merged, sorted and limited.
    func readSamples(descriptors: [HKQueryDescriptor], order: [SampleOrder], limit: Int) throws -> [HKSample] {
        var samples: [HKSample] = []
        for descriptor in descriptors {
            samples += try readSamples(type: descriptor.sampleType, predicate: descriptor.predicate, order: order, limit: limit)
        }
        if descriptors.count > 1 {
            samples.sort { SampleOrder.precedes($0, $1, order) }
            if limit > 0, samples.count > limit { samples = Array(samples.prefix(limit)) }
        }
        return samples
    }
}

extension SampleOrder {
    /// The orders NSSortDescriptors describe; other key paths sort by start date.
    static func from(_ descriptors: [NSSortDescriptor]?) -> [SampleOrder] {
        (descriptors ?? []).map { descriptor in
            let key: Key = descriptor.keyPath == \HKSample.endDate ? .endDate : .startDate
            return SampleOrder(key: key, ascending: descriptor.ascending)
        }
    }

    /// Whether `lhs` sorts before `rhs`; ties keep the order they had.
    static func precedes(_ lhs: HKSample, _ rhs: HKSample, _ orders: [SampleOrder]) -> Bool {
        for order in orders {
            let a = order.key == .startDate ? lhs.startDate : lhs.endDate
            let b = order.key == .startDate ? rhs.startDate : rhs.endDate
            if a != b { return order.ascending ? a < b : a > b }
        }
        return false
    }
}
