/// A value bound to a `?` placeholder of ``SearchSQL``.
public enum SearchSQLArgument: Sendable, Hashable {
    /// Text.
    case text(String)
    /// A 64-bit integer.
    case integer(Int64)
}

/// The SQL both stores run for the indexed part of a search, written once: standard SQL with
/// `?` placeholders (PostgreSQL's store numbers them). Tables:
///
/// - `fhir_search_token (patient, type, id, param, system, code, hull_low, hull_high, hull_single, hull_span)`,
///   `system` "" when none, the hull that of the resource's `date` values
///   (``SearchIndexEntries/dateHull``), `hull_single` 1 when that is its only value
///   (``SearchIndexEntries/dateHullIsSingle``), `hull_span` the hull's width class
///   (``hullSpan(_:)``);
/// - `fhir_search_date (patient, type, id, param, low, high)`, milliseconds, inclusive.
public enum SearchSQL {
    /// A statement and its arguments in order.
    public struct Statement: Sendable, Hashable {
        /// The SQL text, with `?` placeholders.
        public var sql: String
        /// The arguments.
        public var arguments: [SearchSQLArgument]
    }

    /// Selects `id`, `sort_key` (the sort parameter's earliest start ascending, latest end
    /// descending; null for `_id` order or no value) of the resources of `type` in `patient`'s
    /// compartment that satisfy every indexed clause of `query` (the others are ignored here).
    /// With `distinct` false a resource whose several token rows match is selected once per
    /// row (the caller keeps the first): SQLite then needs no temporary B-tree for `DISTINCT`.
    /// A search driven by one `system|code` value with `date` clauses is one branch per width
    /// class of the hull (``hullSpanBounds``), each an index range bounded at both ends.
    ///
    /// Per driving row, each probe and the sort key read only that resource's rows of one
    /// parameter (the `_resource` indexes): the work is proportional to the driving rows, never
    /// to their square. Their value columns are expressions (`+low`) so that no planner takes
    /// them from a value index, and on PostgreSQL (`dialect`) a probe stays a subplan
    /// (`Dialect.probeEnd`).
    public static func candidates(patient: String, query: SearchQuery, distinct: Bool = true, dialect: Dialect = .sqlite) -> Statement {
        let indexed = query.clauses.filter(\.isIndexed)
        func isNegative(_ clause: SearchClause) -> Bool {
            clause.modifier == .missing ? clause.missing : clause.modifier == .not
        }
        // The first positive clause drives (tokens first: they are usually the most selective);
        // the others are index probes per driving row.
        let positive = indexed.filter { !isNegative($0) }.sorted { ($0.parameter.type == .token ? 0 : 1) < ($1.parameter.type == .token ? 0 : 1) }
        var sql: String
        var arguments: [SearchSQLArgument] = []
        var probes = positive
        var drivenByToken = false
        // What the hull clauses imply for a token row's hull (nil: nothing, the one-range form).
        var spanBounds: HullBounds?
        if let driver = probes.first {
            probes.removeFirst()
            let condition = valueCondition(driver)
            sql = "SELECT \(distinct ? "DISTINCT " : "")r.id AS id FROM \(table(driver)) r WHERE r.patient = ? AND r.type = ? AND r.param = ?" + condition.sql
            arguments = [.text(patient), .text(query.type), .text(driver.parameter.code)] + condition.arguments
            if driver.parameter.type == .token {
                drivenByToken = true
                for clause in probes where isHullClause(clause) {
                    let hull = hullCondition(clause)
                    sql += hull.sql
                    arguments += hull.arguments
                }
                // Only when the driver fixes the value index's columns before `hull_span` (one
                // value, system and code): otherwise a branch per class would scan the same rows
                // once per class.
                if driver.modifier == nil, driver.values.count == 1, case .token(.some, .some) = driver.values[0] {
                    spanBounds = hullBounds(probes.filter(isHullClause))
                }
            }
        } else {
            sql = "SELECT r.id AS id FROM fhir_resource r WHERE r.patient = ? AND r.type = ?"
            arguments = [.text(patient), .text(query.type)]
        }
        for clause in probes + indexed.filter(isNegative) {
            // A probe is one resource's rows of one parameter: its value columns are written as
            // expressions (`Dialect.opaque(_:text:)`: the same value, but no index serves
            // it), so that no planner (SQLite has no statistics, PostgreSQL none on a table
            // just filled) takes it as a range of a value index over the whole compartment,
            // scanned again for each driving row.
            let condition = valueCondition(clause, low: dialect.opaque("x.low", text: false), high: dialect.opaque("x.high", text: false),
                                           code: dialect.opaque("x.code", text: true), system: dialect.opaque("x.system", text: true))
            let probe = "EXISTS (SELECT 1 FROM \(table(clause)) x WHERE x.patient = r.patient AND x.type = r.type AND x.id = r.id AND "
                + dialect.probeParameter + " = ?"
                + condition.sql + dialect.probeEnd + ")"
            if drivenByToken, !isNegative(clause), isHullClause(clause) {
                // A token row whose resource has exactly one `date` value carries that value as
                // its hull (`hull_single`): the clause is tested on the row itself, and the date
                // rows are probed only for the other resources.
                let onHull = valueCondition(clause, low: "r.hull_low", high: "r.hull_high")
                sql += " AND (CASE WHEN r.hull_single = 1 THEN (1 = 1" + onHull.sql + ") ELSE " + probe + " END)"
                arguments += onHull.arguments + [.text(clause.parameter.code)] + condition.arguments
                continue
            }
            sql += (isNegative(clause) ? " AND NOT " : " AND ") + probe
            arguments += [.text(clause.parameter.code)] + condition.arguments
        }
        if let spanBounds {
            (sql, arguments) = spanBranches(sql, arguments, bounds: spanBounds)
        }
        var sortColumn = "NULL"
        var sortArguments: [SearchSQLArgument] = []
        if query.sort.key != "_id" {
            // `+d.high`, `+d.low`: the aggregate reads the resource's rows of the parameter
            // (`fhir_search_date_resource`); on the column itself both databases' min/max
            // optimization may take it from the end of `fhir_search_date_high` (`_low`)
            // instead, walking every date row of the compartment until it meets the resource's.
            let function = query.sort.descending ? "MAX(+d.high)" : "MIN(+d.low)"
            sortColumn = "(SELECT \(function) FROM fhir_search_date d WHERE d.patient = ? AND d.type = ? AND d.id = c.id AND d.param = ?)"
            sortArguments = [.text(patient), .text(query.type), .text(query.sort.key)]
        }
        return Statement(sql: "SELECT c.id AS id, \(sortColumn) AS sort_key FROM (\(sql)) c", arguments: sortArguments + arguments)
    }

    /// The database a statement is written for: the SQL is the same but for planner fences
    /// (`SQLDialect.probeEnd`, `SQLDialect.probeParameter`, `SQLDialect.opaque(_:text:)`).
    public typealias Dialect = SQLDialect

    private static func table(_ clause: SearchClause) -> String {
        clause.parameter.type == .token ? "fhir_search_token" : "fhir_search_date"
    }

    /// Whether `clause` is a plain date clause on ``hullParameter``, the parameter whose values
    /// the token rows summarize.
    private static func isHullClause(_ clause: SearchClause) -> Bool {
        clause.parameter.code == hullParameter && clause.parameter.type == .date && clause.modifier == nil
    }

    /// ` AND (…)`: the alternatives of a clause on the columns of its table (nothing for
    /// `:missing`); the columns are `low`, `high`, `code` and `system` unless named.
    private static func valueCondition(_ clause: SearchClause, low: String = "low", high: String = "high",
                                       code codeColumn: String = "code", system systemColumn: String = "system") -> Statement {
        guard clause.modifier != .missing else { return Statement(sql: "", arguments: []) }
        var arguments: [SearchSQLArgument] = []
        var alternatives: [String] = []
        for value in clause.values {
            switch value {
            case .token(let system, let code):
                var conditions: [String] = []
                if let code {
                    conditions.append("\(codeColumn) = ?")
                    arguments.append(.text(code))
                }
                if let system {
                    conditions.append("\(systemColumn) = ?")
                    arguments.append(.text(system))
                }
                alternatives.append("(" + conditions.joined(separator: " AND ") + ")")
            case .date(let prefix, let range):
                let condition = dateCondition(prefix, range, low: low, high: high)
                alternatives.append(condition.sql)
                arguments.append(contentsOf: condition.arguments.map(SearchSQLArgument.integer))
            case .reference, .string:
                alternatives.append("1 = 0")
            }
        }
        return Statement(sql: " AND (" + alternatives.joined(separator: " OR ") + ")", arguments: arguments)
    }

    /// The date parameter whose hull every token row carries (`hull_low`, `hull_high`).
    public static let hullParameter = "date"

    /// ` AND (…)`: what a `date` clause implies for the hull of the resource's `date` values
    /// (necessary, not sufficient: the exact test is the clause's probe). A resource without
    /// `date` values has a null hull and fails, as it fails the clause.
    private static func hullCondition(_ clause: SearchClause) -> Statement {
        var alternatives: [String] = []
        var arguments: [SearchSQLArgument] = []
        for value in clause.values {
            guard case .date(let prefix, let range) = value else { continue }
            switch prefix {
            case .eq:
                alternatives.append("(r.hull_low <= ? AND r.hull_high >= ?)")
                arguments += [.integer(range.high), .integer(range.low)]
            case .gt, .sa:
                alternatives.append("(r.hull_high > ?)")
                arguments.append(.integer(range.high))
            case .lt, .eb:
                alternatives.append("(r.hull_low < ?)")
                arguments.append(.integer(range.low))
            case .ge:
                alternatives.append("(r.hull_high >= ?)")
                arguments.append(.integer(range.low))
            case .le:
                alternatives.append("(r.hull_low <= ?)")
                arguments.append(.integer(range.high))
            case .ne:
                return Statement(sql: "", arguments: [])
            }
        }
        guard !alternatives.isEmpty else { return Statement(sql: "", arguments: []) }
        return Statement(sql: " AND (" + alternatives.joined(separator: " OR ") + ")", arguments: arguments)
    }

    /// What a search's date clauses imply for a token row's hull, inclusive: `hull_high >=
    /// highAtLeast`, `hull_low <= lowAtMost` (nil: no bound).
    struct HullBounds: Equatable {
        var highAtLeast: Int64?
        var lowAtMost: Int64?
    }

    /// The bounds every one of `clauses` implies (each clause the weakest bound of its
    /// alternatives, a bound only if each alternative has one); nil when there is none.
    static func hullBounds(_ clauses: [SearchClause]) -> HullBounds? {
        var bounds = HullBounds()
        for clause in clauses where !clause.values.isEmpty {
            var highAtLeast: Int64? = Int64.max
            var lowAtMost: Int64? = Int64.min
            for value in clause.values {
                guard case .date(let prefix, let range) = value else {
                    (highAtLeast, lowAtMost) = (nil, nil)
                    break
                }
                var high: Int64?
                var low: Int64?
                switch prefix {
                case .eq: (high, low) = (range.low, range.high)
                case .ge: high = range.low
                case .gt, .sa: high = range.high == Int64.max ? nil : range.high + 1
                case .le: low = range.high
                case .lt, .eb: low = range.low == Int64.min ? nil : range.low - 1
                case .ne: break
                }
                highAtLeast = high.flatMap { high in highAtLeast.map { min($0, high) } }
                lowAtMost = low.flatMap { low in lowAtMost.map { max($0, low) } }
            }
            if let highAtLeast { bounds.highAtLeast = max(bounds.highAtLeast ?? highAtLeast, highAtLeast) }
            if let lowAtMost { bounds.lowAtMost = min(bounds.lowAtMost ?? lowAtMost, lowAtMost) }
        }
        return bounds == HullBounds() ? nil : bounds
    }

    /// The token-driven selection `sql` as one branch per width class of the hull, combined
    /// with `UNION ALL`, so that each is a range of the value index: a hull of width at most
    /// W with `hull_high >= X` has `hull_low >= X − W`. The last class (wide or open hulls)
    /// has no lower bound on `hull_low`. A resource has one hull, so one class: no id comes
    /// from two branches.
    private static func spanBranches(_ sql: String, _ arguments: [SearchSQLArgument],
                                     bounds: HullBounds) -> (String, [SearchSQLArgument]) {
        var branches: [String] = []
        var allArguments: [SearchSQLArgument] = []
        for span in 0...hullSpanBounds.count {
            var branch = sql + " AND r.hull_span = \(span)"
            var branchArguments = arguments
            if span < hullSpanBounds.count, let highAtLeast = bounds.highAtLeast {
                let (lowest, overflow) = highAtLeast.subtractingReportingOverflow(hullSpanBounds[span])
                branch += " AND r.hull_low >= ?"
                branchArguments.append(.integer(overflow ? Int64.min : lowest))
            }
            if let lowAtMost = bounds.lowAtMost {
                branch += " AND r.hull_low <= ?"
                branchArguments.append(.integer(lowAtMost))
            }
            branches.append(branch)
            allArguments += branchArguments
        }
        return (branches.joined(separator: " UNION ALL "), allArguments)
    }

    /// The largest width (`hull_high − hull_low`, ms) of each bounded width class of the hull,
    /// `hull_span` 0, 1, …: an instant or a dateTime to the second, a day, the longest month,
    /// a leap year (how ``SearchDateRange/init(fhir:)`` ranges partial dates). A wider hull
    /// (a Period) or an open one is in the last class, `hullSpanBounds.count`.
    public static let hullSpanBounds: [Int64] = [999, 86_399_999, 2_678_399_999, 31_622_399_999]

    /// The width class (`hull_span`) of a hull.
    public static func hullSpan(_ hull: SearchDateRange) -> Int {
        guard hull.low != Int64.min, hull.high != Int64.max else { return hullSpanBounds.count }
        let (width, overflow) = hull.high.subtractingReportingOverflow(hull.low)
        guard !overflow else { return hullSpanBounds.count }
        return hullSpanBounds.firstIndex { width <= $0 } ?? hullSpanBounds.count
    }

    /// The statements that add the width class `hull_span` (``hullSpan(_:)``) to the token rows
    /// and put it before `hull_low` in the value index (the same text on both databases; run
    /// after ``hullSingleUpgrade``): the class of every row is set from its stored hull.
    public static let hullSpanUpgrade: [String] = {
        // Open ends first: the width of an open hull is not an integer.
        let classes = hullSpanBounds.enumerated().map { "WHEN hull_high - hull_low <= \($0.element) THEN \($0.offset)" }
        return [
            "ALTER TABLE fhir_search_token ADD COLUMN hull_span INTEGER",
            "DROP INDEX fhir_search_token_value",
            "UPDATE fhir_search_token SET hull_span = CASE WHEN hull_low < -9223372036854775807 OR hull_high > 9223372036854775806 "
                + "THEN \(hullSpanBounds.count) " + classes.joined(separator: " ") + " ELSE \(hullSpanBounds.count) END "
                + "WHERE hull_low IS NOT NULL AND hull_high IS NOT NULL",
            "CREATE INDEX fhir_search_token_value ON fhir_search_token (patient, type, param, code, system, hull_span, hull_low, hull_high, hull_single, id)",
        ]
    }()

    /// The SQL condition on the columns `low`/`high` (or those named) that is
    /// ``SearchDatePrefix/matches(_:_:)``.
    static func dateCondition(_ prefix: SearchDatePrefix, _ range: SearchDateRange, low: String = "low",
                              high: String = "high") -> (sql: String, arguments: [Int64]) {
        let contained = "(\(low) >= ? AND \(high) <= ?)"
        switch prefix {
        case .eq: return (contained, [range.low, range.high])
        case .ne: return ("NOT " + contained, [range.low, range.high])
        case .gt: return ("(\(high) > ?)", [range.high])
        case .lt: return ("(\(low) < ?)", [range.low])
        case .ge: return ("(\(high) > ? OR \(contained))", [range.high, range.low, range.high])
        case .le: return ("(\(low) < ? OR \(contained))", [range.low, range.low, range.high])
        case .sa: return ("(\(low) > ?)", [range.high])
        case .eb: return ("(\(high) < ?)", [range.low])
        }
    }

    /// Selects `id`, `system`, `code` of the `_security` labels of the resources of `type` in
    /// `patient`'s compartment (the label filter needs only these).
    public static func securityLabels(patient: String, type: String) -> Statement {
        Statement(sql: "SELECT id, system, code FROM fhir_search_token WHERE patient = ? AND type = ? AND param = '_security'",
                  arguments: [.text(patient), .text(type)])
    }

    /// The statements that add `hull_single` to the token rows (the same text on both
    /// databases; run after ``schema``, then every resource is indexed again): 1 when the
    /// resource has exactly one ``hullParameter`` value, whose range the hull then is, so a
    /// date clause is tested on the token row instead of probing the date rows. Rows written
    /// before it hold 0, which only means "probe".
    public static let hullSingleUpgrade: [String] = [
        "ALTER TABLE fhir_search_token ADD COLUMN hull_single INTEGER NOT NULL DEFAULT 0",
        "DROP INDEX fhir_search_token_value",
        "CREATE INDEX fhir_search_token_value ON fhir_search_token (patient, type, param, code, system, hull_low, hull_high, hull_single, id)",
    ]

    /// The statements that create the index tables (the same text on both databases).
    public static let schema: [String] = [
        """
        CREATE TABLE fhir_search_token (
            patient TEXT NOT NULL, type TEXT NOT NULL, id TEXT NOT NULL, param TEXT NOT NULL, system TEXT NOT NULL, code TEXT NOT NULL,
            hull_low BIGINT, hull_high BIGINT)
        """,
        "CREATE INDEX fhir_search_token_value ON fhir_search_token (patient, type, param, code, system, hull_low, hull_high, id)",
        "CREATE INDEX fhir_search_token_resource ON fhir_search_token (patient, type, id, param, code, system)",
        """
        CREATE TABLE fhir_search_date (
            patient TEXT NOT NULL, type TEXT NOT NULL, id TEXT NOT NULL, param TEXT NOT NULL, low BIGINT NOT NULL, high BIGINT NOT NULL)
        """,
        "CREATE INDEX fhir_search_date_low ON fhir_search_date (patient, type, param, low, high, id)",
        "CREATE INDEX fhir_search_date_high ON fhir_search_date (patient, type, param, high, low, id)",
        "CREATE INDEX fhir_search_date_resource ON fhir_search_date (patient, type, id, param, low, high)",
    ]
}
