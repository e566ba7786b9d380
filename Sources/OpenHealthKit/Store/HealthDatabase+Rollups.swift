import Foundation
import GRDB

/// The rollup grains a write transaction must rebuild, by type: every grain that a saved or
/// deleted quantity sample touches.
struct RollupChanges: Sendable {
    private(set) var grains: [String: Set<Int64>] = [:]

    /// Notes a quantity sample saved or deleted (a sample too long to roll up changes no grain).
    mutating func note(type: String, start: Double, end: Double) {
        guard RollupPage.isRolledUp(start: start, end: end) else { return }
        grains[type, default: []].formUnion(RollupPage.grains(start: start, end: end))
    }

    var isEmpty: Bool { grains.isEmpty }
}

extension HealthDatabase {
    /// The most grains rebuilt from one query (32 days).
    private static let grainsPerQuery: Int64 = 32 * Int64(RollupPage.grainsPerPage)

    /// Rebuilds the grains `changes` lists from the rows as they are now in this transaction;
    /// the other grains of their pages are kept as stored.
    func refreshRollups(_ db: Database, _ changes: RollupChanges) throws {
        guard !changes.isEmpty else { return }
        let numbers = try Self.sourceNumbers(db)
        for (type, grains) in changes.grains {
            try rebuildGrains(db, type: type, grains: grains.sorted(), numbers: numbers)
        }
    }

    /// Rebuilds every page of `type` from its rows (after the owner changes its source order).
    func rebuildRollups(_ db: Database, type: String) throws {
        try db.execute(sql: "DELETE FROM rollup_page WHERE type = ?", arguments: [type])
        guard let range = try Row.fetchOne(db, sql: """
            SELECT min(start), max("end") FROM sample WHERE type = ? AND kind = 1 AND NOT \(RollupPage.longCondition)
            """, arguments: [type]), let first = range[0] as Double?, let last = range[1] as Double? else {
            return
        }
        let grains = RollupPage.grains(start: first, end: max(first, last))
        try rebuildGrains(db, type: type, grains: Array(grains), numbers: try Self.sourceNumbers(db))
    }

    /// Builds the rollups of a store that held quantity samples before it had rollups
    /// (`rollups_pending`, set by the v5-rollups migration), in one transaction.
    func rebuildRollupsIfPending() throws {
        try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM store_info WHERE key = 'rollups_pending'") == true else { return }
            for type in try String.fetchAll(db, sql: "SELECT DISTINCT type FROM sample WHERE kind = 1 ORDER BY type") {
                try rebuildRollups(db, type: type)
            }
            try db.execute(sql: "DELETE FROM store_info WHERE key = 'rollups_pending'")
        }
    }

    /// Rebuilds `grains` (sorted) of `type`: runs of nearby grains, each read with one query
    /// that also sees the day before the run (for samples crossing into it).
    private func rebuildGrains(_ db: Database, type: String, grains: [Int64], numbers: SourceNumbers) throws {
        guard let style = QuantityTypeCatalog.descriptor(for: HKQuantityTypeIdentifier(rawValue: type))?.aggregationStyle,
              !grains.isEmpty else { return }
        let merge: StatisticsMergeStrategy = style == .cumulative ? .priority(try statisticsSourceOrder(db, type: type)) : .sumAllSources
        var runStart = 0
        while runStart < grains.count {
            var runEnd = runStart
            // Grains of the same or the next page join the run, up to the query's span.
            while runEnd + 1 < grains.count, RollupPage.page(ofGrain: grains[runEnd + 1]) <= RollupPage.page(ofGrain: grains[runEnd]) + 1,
                  grains[runEnd + 1] - grains[runStart] < Self.grainsPerQuery {
                runEnd += 1
            }
            try rebuildRun(db, type: type, grains: grains[runStart...runEnd], style: style, merge: merge, numbers: numbers)
            runStart = runEnd + 1
        }
    }

    private func rebuildRun(_ db: Database, type: String, grains: ArraySlice<Int64>, style: HKQuantityAggregationStyle,
                            merge: StatisticsMergeStrategy, numbers: SourceNumbers) throws {
        guard let firstGrain = grains.first, let lastGrain = grains.last else { return }
        let low = Double(firstGrain) * RollupPage.grainSeconds
        let high = Double(lastGrain + 1) * RollupPage.grainSeconds
        let gathered = try gatherQuantityRows(
            db, type: type,
            filter: "s.start >= ? AND s.start < ? AND (s.\"end\" > ? OR s.start >= ?) AND NOT \(RollupPage.longCondition)",
            arguments: [low - RollupPage.pageSeconds, high, low, low], numbers: numbers)
        let rows = try gathered.open(cipher: cipher, type: type)
        let wanted = Set(grains)
        // Rows wholly inside one grain, by grain; grains a row crosses.
        var inside: [Int64: [StatisticsSample]] = [:]
        var crossed = Set<Int64>()
        for row in rows {
            let touched = RollupPage.grains(start: row.start, end: row.end)
            if touched.count == 1 {
                if wanted.contains(touched.lowerBound) {
                    inside[touched.lowerBound, default: []].append(row)
                }
            } else {
                let lower = max(touched.lowerBound, firstGrain)
                let upper = min(touched.upperBound, lastGrain)
                if lower <= upper { crossed.formUnion((lower...upper).filter(wanted.contains)) }
            }
        }
        let order: [Int32]
        if case .priority(let ranked) = merge { order = ranked } else { order = [] }
        let stored = try db.cachedStatement(sql: "SELECT sealed FROM rollup_page WHERE type = ? AND page = ?")
        let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO rollup_page (type, page, sealed) VALUES (?, ?, ?)")
        let remove = try db.cachedStatement(sql: "DELETE FROM rollup_page WHERE type = ? AND page = ?")
        for page in RollupPage.page(ofGrain: firstGrain)...RollupPage.page(ofGrain: lastGrain) {
            let pageGrains = (page * Int64(RollupPage.grainsPerPage))..<((page + 1) * Int64(RollupPage.grainsPerPage))
            guard pageGrains.contains(where: wanted.contains) else { continue }
            // The page's other grains stay as stored.
            var kept: [RollupPage.Grain] = []
            if let sealed = try Data.fetchOne(stored, arguments: [type, page]) {
                kept = try RollupPage(opening: sealed, type: type, page: page, cipher: cipher).grains
                kept.removeAll { wanted.contains(page * Int64(RollupPage.grainsPerPage) + Int64($0.index)) }
            }
            for grain in pageGrains where wanted.contains(grain) {
                let start = Double(grain) * RollupPage.grainSeconds
                let rollup = StatisticsEngine.rollup(of: inside[grain] ?? [], start: start, end: start + RollupPage.grainSeconds,
                                                     style: style, merge: merge)
                let isCrossed = crossed.contains(grain)
                guard rollup != nil || isCrossed else { continue }
                var entry = RollupPage.Grain(index: Int(grain - pageGrains.lowerBound), crossed: isCrossed, rollup: rollup)
                if let rollup, rollup.bySource.count > 1, !order.isEmpty {
                    let present = Set(rollup.bySource.map(\.source))
                    entry.order = order.filter(present.contains)
                }
                kept.append(entry)
            }
            kept.sort { $0.index < $1.index }
            if kept.isEmpty {
                try remove.execute(arguments: [type, page])
            } else {
                try upsert.execute(arguments: [type, page, try RollupPage(page: page, grains: kept).sealed(type: type, cipher: cipher)])
            }
        }
    }
}
