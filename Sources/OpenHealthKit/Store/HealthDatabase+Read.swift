import Foundation
import GRDB
import GRDBSQLite

/// Which sources' samples a read may see, after authorization: all of them, only some (the
/// caller's own writes when it may share but not read), or none.
enum ReadScope: Sendable, Equatable {
    case everything
    case sources(Set<String>)
    case nothing

    /// Whether a sample saved by `source` is inside the scope.
    func admits(source: String) -> Bool {
        switch self {
        case .everything: return true
        case .nothing: return false
        case .sources(let sources): return sources.contains(source)
        }
    }

    func sql(column: String, arguments: inout StatementArguments) -> String {
        switch self {
        case .everything:
            return "1"
        case .nothing:
            return "0"
        case .sources(let bundles):
            guard !bundles.isEmpty else { return "0" }
            for bundle in bundles.sorted() { arguments += [bundle] }
            return "\(column) IN (SELECT id FROM source WHERE bundle_identifier IN (\(SQLPredicate.placeholders(bundles.count))))"
        }
    }
}

/// The sort keys HealthKit queries accept: the dates SQL sorts by, or another property the
/// samples are sorted by once read.
struct SampleOrder: Sendable {
    enum Key: Sendable {
        case startDate, endDate
        /// Sorted after reading (a workout's duration or totals, or any key path of a
        /// `SortDescriptor`): the comparison, before `ascending` applies.
        case other(SampleComparator)
    }
    var key: Key
    var ascending: Bool

    /// The ORDER BY term, or nil for a key sorted after reading.
    var sql: String? {
        switch key {
        case .startDate: return "s.start" + (ascending ? " ASC" : " DESC")
        case .endDate: return "s.\"end\"" + (ascending ? " ASC" : " DESC")
        case .other: return nil
        }
    }

    /// Whether the samples are sorted by this key once read.
    var sortsAfterReading: Bool { sql == nil }
}

/// A comparison of two samples by a property SQL does not sort by. Foundation's sort
/// descriptors are not `Sendable`; the comparison only reads them.
struct SampleComparator: @unchecked Sendable {
    let compare: (HKSample, HKSample) -> ComparisonResult
}

/// One read of samples: the types, the translated predicate, what authorization allows, the
/// order and the limit (0 means none).
struct SampleFetch {
    var types: [String]
    var predicate: SQLPredicate
    var scope: ReadScope
    var order: [SampleOrder] = []
    var limit: Int = 0
    /// For correlation types read by an app: the per-row member check.
    var correlationVisibility: CorrelationVisibility?
    /// Whether a quantity series is read as its quantities (statistics) rather than as one
    /// sample (queries, which never see the series' member rows).
    var seriesAsQuantities = false
    /// For a per-object type read by an app: the deletions it may see (its scope is lifted to
    /// everything, so the scope alone would report every object's deletion).
    var perObjectDeletions: PerObjectDeletions?

    /// Whether rows are filtered after SQL, so SQL's LIMIT cannot be used.
    var filtersAfterSQL: Bool { predicate.needsResidualCheck || correlationVisibility != nil }
}

extension HealthDatabase {
    static let sampleColumns = """
        s.id, s.uuid, \(SampleTypeCode.identifier(of: "s.type")), s.kind, s.start, s."end", s.activity_type, s.anchor, s.sealed,
        src.bundle_identifier, src.name, src.version, src.product_type, src.os_version
        """
    /// The number of columns in `sampleColumns`; predicate leaf columns follow them.
    static let sampleColumnCount = 14

    /// Fetches samples, deciding value comparisons after decryption where SQL cannot.
    func fetchSamples(_ fetch: SampleFetch) async throws -> [HKSample] {
        guard fetch.scope != .nothing, !fetch.types.isEmpty else { return [] }
        return try await readAsync { db in
            let context = DecodingContext(cipher: cipher, db: db)
            return try fetchSamples(db, fetch, anchorRange: nil, context: context).map(\.sample)
        }
    }

    /// Runs `body` in one read transaction after checking that `after` (a caller's anchor) is
    /// still usable: not older than the deletion history kept (when `deletions` are read), not
    /// from the future. `body` gets the newest change number, so every read inside sees the
    /// same history.
    func readChanges<T: Sendable>(after: Int64?, deletions: Bool = true, _ body: @Sendable (Database, Int64) throws -> T) async throws -> T {
        try await readAsync { db in
            let through = try Self.sequence(db)
            if let after, deletions {
                let pruned = try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM store_info WHERE key = 'pruned_through'") ?? 0
                guard after >= pruned else {
                    throw HealthStoreError(.anchorExpired, "the anchor is older than the kept deletion history; resynchronise from a nil anchor")
                }
            }
            if let after, after > through {
                throw HealthStoreError(.invalidAnchor, "the anchor is ahead of this store")
            }
            return try body(db, through)
        }
    }

    /// Added samples and (when `deletions`) deletions with change numbers in `(after, through]`,
    /// each with its change number, at most `limit` of each (0 = all). A nil `after` means
    /// "everything currently stored" and reports no deletions. Call inside `readChanges`.
    func changes(_ db: Database, fetch: SampleFetch, after: Int64?, through: Int64, deletions: Bool = true) throws -> ChangeBatch {
        guard fetch.scope != .nothing, !fetch.types.isEmpty else { return ChangeBatch() }
        let range = (after ?? 0)...through
        var batch = ChangeBatch()
        let context = DecodingContext(cipher: cipher, db: db)
        batch.added = try fetchSamples(db, fetch, anchorRange: range, context: context).map { ($0.anchor, $0.sample) }
        guard after != nil, deletions else { return batch }
        var arguments = StatementArguments()
        for type in fetch.types { arguments += [type] }
        arguments += [range.lowerBound, range.upperBound]
        let scopeSQL = fetch.scope.sql(column: "d.source_id", arguments: &arguments)
        var sql = """
            SELECT d.anchor, d.uuid, d.sealed, src.bundle_identifier FROM deleted_object d JOIN source src ON src.id = d.source_id
            WHERE d.type IN (\(SQLPredicate.placeholders(fetch.types.count))) AND d.anchor > ? AND d.anchor <= ? AND \(scopeSQL)
            ORDER BY d.anchor
            """
        // Per-object deletions are filtered after SQL, so the limit is applied while reading.
        if fetch.limit > 0, fetch.perObjectDeletions == nil { sql += " LIMIT \(fetch.limit)" }
        for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
            let uuidBlob: Data = row["uuid"]
            guard let uuid = UUID(databaseBlob: uuidBlob) else {
                throw HealthStoreError(.corruptDatabase, "a deleted object has a malformed UUID")
            }
            if let restriction = fetch.perObjectDeletions {
                guard restriction.admits(uuid: uuid, source: row["bundle_identifier"]) else { continue }
                if fetch.limit > 0, batch.deleted.count >= fetch.limit { break }
            }
            var metadata: [String: Any]?
            if let sealed = row["sealed"] as Data? {
                metadata = try MetadataCodec.decode(cipher.open(sealed, context: uuidBlob)).mapValues(\.anyValue)
            }
            batch.deleted.append((row["anchor"], HKDeletedObject(uuid: uuid, metadata: metadata)))
        }
        return batch
    }

    private func fetchSamples(_ db: Database, _ fetch: SampleFetch, anchorRange: ClosedRange<Int64>?, context: DecodingContext) throws
        -> [(sample: HKSample, anchor: Int64)] {
        var arguments = fetch.predicate.leafArguments
        var columns = Self.sampleColumns
        for column in fetch.predicate.leafColumns { columns += ", \(column)" }
        for type in fetch.types { arguments += [type] }
        var sql = "SELECT \(columns) FROM sample s JOIN source src ON src.id = s.source_id WHERE s.type \(SampleTypeCode.matching(fetch.types.count))"
        sql += " AND " + fetch.predicate.filter
        arguments += fetch.predicate.arguments
        sql += " AND " + fetch.scope.sql(column: "s.source_id", arguments: &arguments)
        sql += " AND " + Self.seriesFilter(asQuantities: fetch.seriesAsQuantities)
        if let anchorRange {
            sql += " AND s.anchor > ? AND s.anchor <= ?"
            arguments += [anchorRange.lowerBound, anchorRange.upperBound]
        }
        let orders = anchorRange != nil ? ["s.anchor"] : fetch.order.compactMap(\.sql) + ["s.id"]
        sql += " ORDER BY " + orders.joined(separator: ", ")
        if fetch.limit > 0, !fetch.filtersAfterSQL { sql += " LIMIT \(fetch.limit)" }

        var result: [(sample: HKSample, anchor: Int64)] = []
        let leafCount = fetch.predicate.leafColumns.count
        let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        while let row = try cursor.next() {
            let item = try DecodedSampleRow(row: row, context: context)
            let sample = try item.makeSample(members: try members(db, of: item, context: context), context: context)
            if fetch.predicate.needsResidualCheck {
                let leaves = (0..<leafCount).map { (row[Self.sampleColumnCount + $0] as Int64? ?? 0) != 0 }
                var evaluator = PredicateEvaluator(sample: sample, sqlLeaves: leaves, metadata: item.metadata)
                guard evaluator.evaluate(fetch.predicate.node) else { continue }
            }
            if let visibility = fetch.correlationVisibility, let correlation = sample as? HKCorrelation,
               !visibility.admits(correlation) {
                continue
            }
            result.append((sample, item.anchor))
            if fetch.limit > 0, result.count >= fetch.limit { break }
        }
        return result
    }

    /// SQL (over the sample table as `s`) that hides a quantity series' member rows from
    /// queries, or, for statistics (`asQuantities`), the series rows themselves.
    static func seriesFilter(asQuantities: Bool) -> String {
        asQuantities
            ? "s.kind <> \(SampleKind.quantitySeries.rawValue)"
            : "(s.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM sample p WHERE p.id = s.parent_id AND p.kind = \(SampleKind.quantitySeries.rawValue)))"
    }

    /// The member samples of a correlation row (empty for other kinds).
    private func members(_ db: Database, of item: DecodedSampleRow, context: DecodingContext) throws -> Set<HKSample> {
        guard item.kind == .correlation else { return [] }
        let statement = try db.cachedStatement(sql: """
            SELECT \(Self.sampleColumns) FROM sample s JOIN source src ON src.id = s.source_id WHERE s.parent_id = ? ORDER BY s.id
            """)
        var result = Set<HKSample>()
        for row in try Row.fetchAll(statement, arguments: [item.rowID]) {
            let member = try DecodedSampleRow(row: row, context: context)
            result.insert(try member.makeSample(members: try members(db, of: member, context: context), context: context))
        }
        return result
    }

    /// The rows a statistics computation needs: start, end, value in the type's canonical
    /// unit and a small source index, sorted by start; plus the sources by index.
    func statisticsRows(type: HKQuantityType, predicate: SQLPredicate, scope: ReadScope) async throws
        -> (rows: [StatisticsSample], sources: [Int32: HKSource]) {
        guard scope != .nothing else { return ([], [:]) }
        // A quantity series is read as its member rows: a predicate naming the series or its
        // workout must also match them.
        let predicate = SQLPredicate(predicate.node, cipher: cipher, seriesMembers: true)
        let (prepared, sourceTable) = try await readAsync { db -> (Gathered, [Int32: HKSource]) in
            let numbers = try Self.sourceNumbers(db)
            if predicate.needsResidualCheck {
                var fetch = SampleFetch(types: [type.identifier], predicate: predicate, scope: scope,
                                        order: [SampleOrder(key: .startDate, ascending: true)])
                fetch.seriesAsQuantities = true
                let samples = try fetchSamples(db, fetch, anchorRange: nil, context: DecodingContext(cipher: cipher, db: db))
                let rows = samples.compactMap { item -> StatisticsSample? in
                    guard let sample = item.sample as? HKQuantitySample,
                          let value = try? sample.quantity.value(in: type.canonicalUnit) else { return nil }
                    return StatisticsSample(start: sample.startDate.timeIntervalSinceReferenceDate,
                                            end: sample.endDate.timeIntervalSinceReferenceDate,
                                            value: value, source: numbers.byBundle[sample.sourceRevision.source.bundleIdentifier] ?? 0)
                }
                return (.decoded(rows), numbers.sources)
            }
            var arguments = predicate.arguments
            let filter = predicate.filter + " AND " + scope.sql(column: "s.source_id", arguments: &arguments)
            return (.sealed(try gatherQuantityRows(db, type: type.identifier, filter: filter, arguments: arguments, numbers: numbers)),
                    numbers.sources)
        }
        switch prepared {
        case .decoded(let rows): return (rows, sourceTable)
        case .sealed(let gathered): return (try gathered.open(cipher: cipher, type: type.identifier), sourceTable)
        }
    }

    /// Every source bundle's number (its rank of first appearance in the source table), by
    /// source row and by bundle, and the sources by number.
    struct SourceNumbers {
        var byRow: [Int64: Int32] = [:]
        var byBundle: [String: Int32] = [:]
        var sources: [Int32: HKSource] = [:]
    }

    static func sourceNumbers(_ db: Database) throws -> SourceNumbers {
        var numbers = SourceNumbers()
        for row in try Row.fetchAll(db, sql: "SELECT id, bundle_identifier, name FROM source ORDER BY id") {
            let bundle: String = row["bundle_identifier"]
            let index = numbers.byBundle[bundle] ?? Int32(numbers.byBundle.count)
            numbers.byBundle[bundle] = index
            numbers.sources[index] = HKSource(name: row["name"], bundleIdentifier: bundle)
            numbers.byRow[row["id"]] = index
        }
        return numbers
    }

    /// Gathers the quantity rows of `type` that match `filter` (SQL over the sample table as
    /// `s`, with `arguments`), in start order, with their sealed values or value-block entries.
    /// Open them after the transaction with ``GatheredValues/open(cipher:type:)``.
    func gatherQuantityRows(_ db: Database, type: String, filter: String, arguments: StatementArguments,
                            numbers: SourceNumbers) throws -> GatheredValues {
        var gathered = GatheredValues()
        try appendQuantityRows(db, to: &gathered, type: type, filter: filter, arguments: arguments, numbers: numbers)
        try fetchBlocks(db, of: &gathered)
        return gathered
    }

    /// Adds the rows `gatherQuantityRows` would gather to `gathered`, without their blocks
    /// (``fetchBlocks(_:of:)`` fetches each block once, after the last rows are added).
    func appendQuantityRows(_ db: Database, to gathered: inout GatheredValues, type: String, filter: String,
                            arguments: StatementArguments, numbers: SourceNumbers) throws {
        var allArguments: StatementArguments = [type]
        allArguments += arguments
        // Rows in a value block are read from their block; only the others need their record.
        let sql = """
            SELECT s.start, s."end", s.uuid, s.block_id, s.block_index, s.source_id,
                   CASE WHEN s.block_id IS NULL THEN s.sealed END
            FROM sample s WHERE s.type = \(SampleTypeCode.parameter) AND s.kind = 1 AND \(filter) ORDER BY s.start
            """
        // Gather inside the transaction, decrypt after it (on every core). Columns are read
        // with the SQLite C API on the statement GRDB steps: no `Data` or `Row` value per column.
        let statement = try db.makeStatement(sql: sql)
        let cursor = try Row.fetchCursor(statement, arguments: allArguments)
        let sqlite = statement.sqliteStatement
        var lastSourceID: Int64 = -1
        var lastSource: Int32 = 0
        while try cursor.next() != nil {
            let start = sqlite3_column_double(sqlite, 0)
            let end = sqlite3_column_double(sqlite, 1)
            guard start.isFinite, end.isFinite, end >= start else {
                throw HealthStoreError(.corruptDatabase, "a stored sample ends before it starts")
            }
            let sourceID = sqlite3_column_int64(sqlite, 5)
            if sourceID != lastSourceID {
                lastSourceID = sourceID
                lastSource = numbers.byRow[sourceID] ?? 0
            }
            guard let uuidBytes = sqlite3_column_blob(sqlite, 2), sqlite3_column_bytes(sqlite, 2) == 16 else {
                throw HealthStoreError(.corruptDatabase, "a sample row has a malformed UUID")
            }
            let uuid = UnsafeRawBufferPointer(start: uuidBytes, count: 16)
            if sqlite3_column_type(sqlite, 3) != SQLITE_NULL {
                guard sqlite3_column_type(sqlite, 4) == SQLITE_INTEGER else {
                    throw HealthStoreError(.corruptDatabase, "a sample row has a value block but no entry index")
                }
                gathered.blocked.append(start: start, end: end, source: lastSource, uuid: uuid,
                                        blockID: sqlite3_column_int64(sqlite, 3), index: sqlite3_column_int64(sqlite, 4))
                gathered.inBlock.append(true)
            } else {
                guard let sealedBytes = sqlite3_column_blob(sqlite, 6) else {
                    throw HealthStoreError(.corruptDatabase, "a sample row has no sealed value")
                }
                let sealed = UnsafeRawBufferPointer(start: sealedBytes, count: Int(sqlite3_column_bytes(sqlite, 6)))
                gathered.sealed.append(start: start, end: end, source: lastSource, uuid: uuid, sealed: sealed)
                gathered.inBlock.append(false)
            }
        }
    }

    /// Fetches the sealed blocks the gathered rows point at, from the same snapshot as the rows.
    func fetchBlocks(_ db: Database, of gathered: inout GatheredValues) throws {
        if !gathered.blocked.blockIDs.isEmpty {
            let blockStatement = try db.cachedStatement(sql: "SELECT sealed FROM value_block WHERE id = ?")
            var blocks: [Data] = []
            blocks.reserveCapacity(gathered.blocked.blockIDs.count)
            for blockID in gathered.blocked.blockIDs {
                guard let sealed = try Data.fetchOne(blockStatement, arguments: [blockID]) else {
                    throw HealthStoreError(.corruptDatabase, "a sample row points at a missing value block")
                }
                blocks.append(sealed)
            }
            gathered.blocked.setSealedBlocks(blocks)
        }
    }

    /// The rows of a statistics read without a residual check, in cursor order: those read
    /// from value blocks and those read from their own records, and which is which.
    struct GatheredValues {
        var blocked = BlockedValueBatch()
        var sealed = SealedValueBatch()
        /// Per row in cursor order: whether it is the next row of `blocked` (else of `sealed`).
        var inBlock: [Bool] = []

        /// Opens the values and returns the rows in cursor order.
        func open(cipher: RecordCipher, type: String) throws -> [StatisticsSample] {
            let blockedValues = try blocked.primaryValues(cipher: cipher, type: type)
            let sealedValues = try sealed.primaryValues(cipher: cipher, type: type)
            // Merge the two kinds of row back into the cursor's order (by start).
            var rows: [StatisticsSample] = []
            rows.reserveCapacity(inBlock.count)
            var nextBlocked = 0
            var nextSealed = 0
            for inBlock in inBlock {
                if inBlock {
                    rows.append(StatisticsSample(start: blocked.starts[nextBlocked], end: blocked.ends[nextBlocked],
                                                 value: Double(bitPattern: blockedValues[nextBlocked]), source: blocked.sources[nextBlocked]))
                    nextBlocked += 1
                } else {
                    rows.append(StatisticsSample(start: sealed.starts[nextSealed], end: sealed.ends[nextSealed],
                                                 value: Double(bitPattern: sealedValues[nextSealed]), source: sealed.sources[nextSealed]))
                    nextSealed += 1
                }
            }
            return rows
        }
    }

    /// What a statistics read gathered: decoded rows (after a residual check) or sealed values.
    private enum Gathered {
        case decoded([StatisticsSample])
        case sealed(GatheredValues)
    }

    /// The sources that saved samples of a type matching a predicate.
    func sources(types: [String], predicate: SQLPredicate, scope: ReadScope) async throws -> Set<HKSource> {
        guard scope != .nothing else { return [] }
        if predicate.needsResidualCheck {
            let samples = try await fetchSamples(SampleFetch(types: types, predicate: predicate, scope: scope))
            return Set(samples.map(\.sourceRevision.source))
        }
        return try await readAsync { db in
            var arguments = StatementArguments()
            for type in types { arguments += [type] }
            var sql = """
                SELECT src.bundle_identifier, src.name FROM source src WHERE src.id IN (
                  SELECT DISTINCT s.source_id FROM sample s WHERE s.type \(SampleTypeCode.matching(types.count)) AND \(predicate.filter)
                """
            arguments += predicate.arguments
            sql += " AND " + scope.sql(column: "s.source_id", arguments: &arguments) + ") ORDER BY src.id"
            var byBundle: [String: HKSource] = [:]
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                let bundle: String = row[0]
                byBundle[bundle] = HKSource(name: row[1], bundleIdentifier: bundle)
            }
            return Set(byBundle.values)
        }
    }

    /// Counts the stored samples of each type (for the CLI and tests).
    func sampleCounts() throws -> [String: Int] {
        try read { db in
            var counts: [String: Int] = [:]
            // A quantity series' member rows are its quantities, not samples of their own.
            for row in try Row.fetchAll(db, sql: """
                SELECT \(SampleTypeCode.identifier(of: "s.type")), count(*) FROM sample s WHERE \(Self.seriesFilter(asQuantities: false)) GROUP BY s.type
                """) {
                counts[row[0]] = row[1]
            }
            return counts
        }
    }
}
