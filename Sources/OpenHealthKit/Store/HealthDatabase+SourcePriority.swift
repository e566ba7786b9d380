import GRDB

extension HealthDatabase {
    /// The bundle identifiers the owner ordered for `type`, highest priority first.
    func sourcePriority(type: String) throws -> [String] {
        try read { db in
            try String.fetchAll(db, sql: "SELECT bundle_identifier FROM source_priority WHERE type = ? ORDER BY position",
                                arguments: [type])
        }
    }

    /// Replaces the owner's order for `type` (an empty list goes back to the default order),
    /// and rebuilds a cumulative type's rollup pages with the new order in the same transaction.
    func setSourcePriority(type: String, bundleIdentifiers: [String]) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM source_priority WHERE type = ?", arguments: [type])
            var seen: Set<String> = []
            for bundle in bundleIdentifiers where seen.insert(bundle).inserted {
                try db.execute(sql: "INSERT INTO source_priority (type, position, bundle_identifier) VALUES (?, ?, ?)",
                               arguments: [type, seen.count - 1, bundle])
            }
            // Only cumulative types merge sources: their merged per-grain totals follow the order.
            if QuantityTypeCatalog.descriptor(for: HKQuantityTypeIdentifier(rawValue: type))?.aggregationStyle == .cumulative {
                try rebuildRollups(db, type: type)
            }
        }
    }

    /// The order statistics merge sources in for `type`, as the source numbers
    /// `statisticsRows` gives (a bundle's number is its rank of first appearance in the source
    /// table).
    func statisticsSourceOrder(type: String) async throws -> [Int32] {
        try await readAsync { db in try self.statisticsSourceOrder(db, type: type) }
    }

    /// ``statisticsSourceOrder(type:)`` inside a transaction.
    func statisticsSourceOrder(_ db: Database, type: String) throws -> [Int32] {
        let (order, firstSeen) = try effectiveSourceOrder(db, type: type)
        var number: [String: Int32] = [:]
        for (index, bundle) in firstSeen.enumerated() { number[bundle] = Int32(index) }
        return order.compactMap { number[$0] }
    }

    /// Every source in the order statistics merge them for `type` (named as last saved).
    func effectiveSources(type: String) throws -> [HKSource] {
        try read { db in
            var names: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT bundle_identifier, name FROM source ORDER BY id") {
                names[row["bundle_identifier"]] = row["name"]
            }
            return try effectiveSourceOrder(db, type: type).order.map { bundle in
                HKSource(name: names[bundle] ?? bundle, bundleIdentifier: bundle)
            }
        }
    }

    /// Every source's bundle identifier in the order statistics merge them for `type`: the
    /// owner's list first, then the default order (`SourcePriorityDefault`), then by first
    /// appearance in the store. Also every bundle in order of first appearance.
    private func effectiveSourceOrder(_ db: Database, type: String) throws -> (order: [String], firstSeen: [String]) {
        let listed = try String.fetchAll(db, sql: "SELECT bundle_identifier FROM source_priority WHERE type = ? ORDER BY position",
                                         arguments: [type])
        var firstSeen: [String] = []
        var productTypes: [String: [String?]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT bundle_identifier, product_type FROM source ORDER BY id") {
            let bundle: String = row["bundle_identifier"]
            if productTypes[bundle] == nil { firstSeen.append(bundle) }
            productTypes[bundle, default: []].append(row["product_type"])
        }
        return (SourcePriorityDefault.order(listed: listed, firstSeen: firstSeen, productTypes: productTypes), firstSeen)
    }
}

/// The default order of sources when the owner has not ordered them, as the Health app does:
/// devices before apps, a watch before a phone.
enum SourcePriorityDefault {
    /// The rank of a source by the product types of its revisions (lower first): 0 a watch,
    /// 1 a phone, 2 another device, 3 an app (no product type).
    static func rank(productTypes: [String?]) -> Int {
        productTypes.map { productType -> Int in
            guard let productType, !productType.isEmpty else { return 3 }
            if productType.hasPrefix("Watch") { return 0 }
            if productType.hasPrefix("iPhone") { return 1 }
            return 2
        }.min() ?? 3
    }

    /// The owner's list, then every other source by default rank and then first appearance.
    static func order(listed: [String], firstSeen: [String], productTypes: [String: [String?]]) -> [String] {
        var order: [String] = []
        var placed: Set<String> = []
        for bundle in listed where placed.insert(bundle).inserted {
            order.append(bundle)
        }
        let rest = firstSeen.enumerated().filter { !placed.contains($0.element) }.sorted { a, b in
            let rankA = rank(productTypes: productTypes[a.element] ?? [])
            let rankB = rank(productTypes: productTypes[b.element] ?? [])
            return rankA != rankB ? rankA < rankB : a.offset < b.offset
        }
        return order + rest.map(\.element)
    }
}
