import Foundation
import GRDB

/// The rollup grains a write transaction must rebuild, by type: every grain that a saved or
/// deleted quantity sample touches.
///
/// It also keeps the rolled-up rows the transaction inserted, so that grains no stored sample
/// touched before are rebuilt from memory instead of read back (``HealthDatabase/refreshRollups(_:_:)``);
/// a type the transaction deleted rows of is always read back.
struct RollupChanges: Sendable {
    /// A quantity row the transaction inserted: its clear times, value bits and source row.
    struct InsertedRow: Sendable {
        var start: Double
        var end: Double
        var valueBits: UInt64
        var sourceID: Int64
    }

    private(set) var grains: [String: Set<Int64>] = [:]
    /// The type and grains noted last: consecutive samples mostly touch the same grain.
    private var last: (type: String, grains: ClosedRange<Int64>)?
    /// The types with inserted rows, and their rows in insertion (row id) order.
    private var insertedTypes: [String] = []
    private var inserted: [[InsertedRow]] = []
    /// The types the transaction deleted rows of.
    private var deletedTypes: Set<String> = []

    /// Notes a quantity sample deleted (a sample too long to roll up changes no grain).
    mutating func noteDeleted(type: String, start: Double, end: Double) {
        deletedTypes.insert(type)
        note(type: type, start: start, end: end)
    }

    /// Notes a quantity sample inserted, with its value's bits and its source's row id.
    mutating func noteInserted(type: String, start: Double, end: Double, valueBits: UInt64, sourceID: Int64) {
        guard RollupPage.isRolledUp(start: start, end: end) else { return }
        let row = InsertedRow(start: start, end: end, valueBits: valueBits, sourceID: sourceID)
        if let index = insertedTypes.indices.last, insertedTypes[index] == type {
            inserted[index].append(row)
        } else if let index = insertedTypes.firstIndex(of: type) {
            inserted[index].append(row)
        } else {
            insertedTypes.append(type)
            inserted.append([row])
        }
        note(type: type, start: start, end: end)
    }

    /// The rows of `type` the transaction inserted, or nil when it also deleted some.
    func insertedRows(of type: String) -> [InsertedRow]? {
        guard !deletedTypes.contains(type), let index = insertedTypes.firstIndex(of: type) else { return nil }
        return inserted[index]
    }

    private mutating func note(type: String, start: Double, end: Double) {
        guard RollupPage.isRolledUp(start: start, end: end) else { return }
        let touched = RollupPage.grains(start: start, end: end)
        if let last, last.grains == touched, last.type == type { return }
        grains[type, default: []].formUnion(touched)
        last = (type, touched)
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
            try rebuildGrains(db, type: type, grains: grains.sorted(), numbers: numbers,
                              inserted: changes.insertedRows(of: type).map(Self.sortedByStart))
        }
    }

    /// Rebuilds every page of `type` from its rows (after the owner changes its source order).
    func rebuildRollups(_ db: Database, type: String) throws {
        try db.execute(sql: "DELETE FROM rollup_page WHERE type = ?", arguments: [type])
        guard let range = try Row.fetchOne(db, sql: """
            SELECT min(start), max("end") FROM sample WHERE type = \(SampleTypeCode.parameter) AND kind = 1 AND NOT \(RollupPage.longCondition)
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
            for type in try String.fetchAll(db, sql: """
                SELECT identifier FROM sample_type t WHERE EXISTS (SELECT 1 FROM sample s WHERE s.type = t.id AND s.kind = 1) ORDER BY identifier
                """) {
                try rebuildRollups(db, type: type)
            }
            try db.execute(sql: "DELETE FROM store_info WHERE key = 'rollups_pending'")
        }
    }

    /// Rebuilds `grains` (sorted) of `type`: runs of nearby grains, each read with one query
    /// that also sees the day before the run (for samples crossing into it), or built from
    /// `inserted`: the rows of `type` this transaction inserted (when it deleted none), by start.
    private func rebuildGrains(_ db: Database, type: String, grains: [Int64], numbers: SourceNumbers,
                               inserted: [RollupChanges.InsertedRow]? = nil) throws {
        guard let style = QuantityTypeCatalog.descriptor(for: HKQuantityTypeIdentifier(rawValue: type))?.aggregationStyle,
              !grains.isEmpty else { return }
        let merge: StatisticsMergeStrategy = style == .cumulative ? .priority(try statisticsSourceOrder(db, type: type)) : .sumAllSources
        // Every stored sample that touches a grain left a page (the grain's rollup or its
        // crossed mark), so the grains of pages absent before this rebuild hold only the
        // transaction's own rows: those runs are built from `inserted`, the others read back.
        let storedPages: Set<Int64> = try inserted.map { _ in
            try Self.storedPages(db, type: type, RollupPage.page(ofGrain: grains[0])...RollupPage.page(ofGrain: grains[grains.count - 1]))
        } ?? []
        func isFresh(_ grain: Int64) -> Bool { inserted != nil && !storedPages.contains(RollupPage.page(ofGrain: grain)) }
        var runStart = 0
        while runStart < grains.count {
            var runEnd = runStart
            // Grains of the same or the next page join the run, up to the query's span, if they
            // are read the same way.
            while runEnd + 1 < grains.count, RollupPage.page(ofGrain: grains[runEnd + 1]) <= RollupPage.page(ofGrain: grains[runEnd]) + 1,
                  grains[runEnd + 1] - grains[runStart] < Self.grainsPerQuery, isFresh(grains[runEnd + 1]) == isFresh(grains[runStart]) {
                runEnd += 1
            }
            try rebuildRun(db, type: type, grains: grains[runStart...runEnd], style: style, merge: merge, numbers: numbers,
                           inserted: isFresh(grains[runStart]) ? inserted : nil)
            runStart = runEnd + 1
        }
    }

    private func rebuildRun(_ db: Database, type: String, grains: ArraySlice<Int64>, style: HKQuantityAggregationStyle,
                            merge: StatisticsMergeStrategy, numbers: SourceNumbers, inserted: [RollupChanges.InsertedRow]?) throws {
        guard let firstGrain = grains.first, let lastGrain = grains.last else { return }
        let low = Double(firstGrain) * RollupPage.grainSeconds
        let high = Double(lastGrain + 1) * RollupPage.grainSeconds
        let rows: [StatisticsSample]
        if let inserted {
            // The rows the query below would read, in its order (by start, then row id).
            var first = 0
            var beyond = inserted.count
            while first < beyond {
                let middle = (first + beyond) / 2
                if inserted[middle].start < low - RollupPage.pageSeconds { first = middle + 1 } else { beyond = middle }
            }
            rows = inserted[first...].prefix { $0.start < high }.compactMap { row in
                guard row.end > low || row.start >= low else { return nil }
                return StatisticsSample(start: row.start, end: row.end, value: Double(bitPattern: row.valueBits),
                                        source: numbers.byRow[row.sourceID] ?? 0)
            }
        } else {
            let gathered = try gatherQuantityRows(
                db, type: type,
                filter: "s.start >= ? AND s.start < ? AND (s.\"end\" > ? OR s.start >= ?) AND NOT \(RollupPage.longCondition)",
                arguments: [low - RollupPage.pageSeconds, high, low, low], numbers: numbers)
            rows = try gathered.open(cipher: cipher, type: type)
        }
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

extension HealthDatabase {
    /// The stored rollup pages of `type` in `pages`.
    fileprivate static func storedPages(_ db: Database, type: String, _ pages: ClosedRange<Int64>) throws -> Set<Int64> {
        Set(try Int64.fetchAll(db, sql: "SELECT page FROM rollup_page WHERE type = ? AND page BETWEEN ? AND ?",
                               arguments: [type, pages.lowerBound, pages.upperBound]))
    }

    /// Inserted rows in the order the rebuild's query returns rows: by start, then by row id
    /// (insertion order).
    fileprivate static func sortedByStart(_ rows: [RollupChanges.InsertedRow]) -> [RollupChanges.InsertedRow] {
        if zip(rows, rows.dropFirst()).allSatisfy({ $0.start <= $1.start }) { return rows }
        return rows.indices.sorted { (rows[$0].start, $0) < (rows[$1].start, $1) }.map { rows[$0] }
    }
}
