import Foundation
import GRDB

/// The rollup pages a write transaction must rebuild, by type: every page holding a grain that a
/// saved or deleted quantity sample touches.
struct RollupChanges: Sendable {
    private(set) var pages: [String: Set<Int64>] = [:]

    /// Notes a quantity sample saved or deleted (a sample too long to roll up changes no page).
    mutating func note(type: String, start: Double, end: Double) {
        guard RollupPage.isRolledUp(start: start, end: end) else { return }
        let grains = RollupPage.grains(start: start, end: end)
        let first = RollupPage.page(ofGrain: grains.lowerBound)
        let last = RollupPage.page(ofGrain: grains.upperBound)
        pages[type, default: []].formUnion(first...last)
    }

    var isEmpty: Bool { pages.isEmpty }
}

extension HealthDatabase {
    /// The most pages rebuilt from one query.
    private static let pagesPerQuery: Int64 = 32

    /// Rebuilds the pages `changes` lists, from the rows as they are now in this transaction.
    func refreshRollups(_ db: Database, _ changes: RollupChanges) throws {
        guard !changes.isEmpty else { return }
        let numbers = try Self.sourceNumbers(db)
        for (type, pages) in changes.pages {
            try rebuildPages(db, type: type, pages: pages.sorted(), numbers: numbers)
        }
    }

    /// Rebuilds every page of `type` from its rows (after the owner changes its source order).
    func rebuildRollups(_ db: Database, type: String) throws {
        guard let range = try Row.fetchOne(db, sql: """
            SELECT min(start), max("end") FROM sample WHERE type = ? AND kind = 1 AND NOT \(RollupPage.longCondition)
            """, arguments: [type]), let first = range[0] as Double?, let last = range[1] as Double? else {
            try db.execute(sql: "DELETE FROM rollup_page WHERE type = ?", arguments: [type])
            return
        }
        try db.execute(sql: "DELETE FROM rollup_page WHERE type = ?", arguments: [type])
        let firstPage = RollupPage.page(ofGrain: RollupPage.grain(containing: first))
        let lastPage = RollupPage.page(ofGrain: RollupPage.grain(containing: last))
        guard firstPage <= lastPage else { return }
        try rebuildPages(db, type: type, pages: Array(firstPage...lastPage), numbers: try Self.sourceNumbers(db))
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

    /// Rebuilds `pages` (sorted) of `type`: contiguous runs of at most ``pagesPerQuery`` pages,
    /// each read with one query that also sees the day before (for samples crossing into it).
    private func rebuildPages(_ db: Database, type: String, pages: [Int64], numbers: SourceNumbers) throws {
        guard let style = QuantityTypeCatalog.descriptor(for: HKQuantityTypeIdentifier(rawValue: type))?.aggregationStyle,
              !pages.isEmpty else { return }
        let merge: StatisticsMergeStrategy = style == .cumulative ? .priority(try statisticsSourceOrder(db, type: type)) : .sumAllSources
        var runStart = 0
        while runStart < pages.count {
            var runEnd = runStart
            while runEnd + 1 < pages.count, pages[runEnd + 1] == pages[runEnd] + 1, pages[runEnd + 1] - pages[runStart] < Self.pagesPerQuery {
                runEnd += 1
            }
            try rebuildRun(db, type: type, pages: pages[runStart]...pages[runEnd], style: style, merge: merge, numbers: numbers)
            runStart = runEnd + 1
        }
    }

    private func rebuildRun(_ db: Database, type: String, pages: ClosedRange<Int64>, style: HKQuantityAggregationStyle,
                            merge: StatisticsMergeStrategy, numbers: SourceNumbers) throws {
        let low = Double(pages.lowerBound) * RollupPage.pageSeconds
        let high = Double(pages.upperBound + 1) * RollupPage.pageSeconds
        let gathered = try gatherQuantityRows(
            db, type: type,
            filter: "s.start >= ? AND s.start < ? AND (s.\"end\" > ? OR s.start >= ?) AND NOT \(RollupPage.longCondition)",
            arguments: [low - RollupPage.pageSeconds, high, low, low], numbers: numbers)
        let rows = try gathered.open(cipher: cipher, type: type)
        // Rows wholly inside one grain, by grain; grains a row crosses.
        var inside: [Int64: [StatisticsSample]] = [:]
        var crossed = Set<Int64>()
        let firstGrain = pages.lowerBound * Int64(RollupPage.grainsPerPage)
        let lastGrain = (pages.upperBound + 1) * Int64(RollupPage.grainsPerPage) - 1
        for row in rows {
            let grains = RollupPage.grains(start: row.start, end: row.end)
            if grains.count == 1 {
                if grains.lowerBound >= firstGrain, grains.lowerBound <= lastGrain {
                    inside[grains.lowerBound, default: []].append(row)
                }
            } else {
                let lower = max(grains.lowerBound, firstGrain)
                let upper = min(grains.upperBound, lastGrain)
                if lower <= upper { crossed.formUnion(lower...upper) }
            }
        }
        let order: [Int32]
        if case .priority(let ranked) = merge { order = ranked } else { order = [] }
        let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO rollup_page (type, page, sealed) VALUES (?, ?, ?)")
        let remove = try db.cachedStatement(sql: "DELETE FROM rollup_page WHERE type = ? AND page = ?")
        for page in pages {
            var grains: [RollupPage.Grain] = []
            for index in 0..<RollupPage.grainsPerPage {
                let grain = page * Int64(RollupPage.grainsPerPage) + Int64(index)
                let start = Double(grain) * RollupPage.grainSeconds
                let rollup = StatisticsEngine.rollup(of: inside[grain] ?? [], start: start, end: start + RollupPage.grainSeconds,
                                                     style: style, merge: merge)
                let isCrossed = crossed.contains(grain)
                guard rollup != nil || isCrossed else { continue }
                var entry = RollupPage.Grain(index: index, crossed: isCrossed, rollup: rollup)
                if let rollup, rollup.bySource.count > 1, !order.isEmpty {
                    let present = Set(rollup.bySource.map(\.source))
                    entry.order = order.filter(present.contains)
                }
                grains.append(entry)
            }
            if grains.isEmpty {
                try remove.execute(arguments: [type, page])
            } else {
                try upsert.execute(arguments: [type, page, try RollupPage(page: page, grains: grains).sealed(type: type, cipher: cipher)])
            }
        }
    }
}
