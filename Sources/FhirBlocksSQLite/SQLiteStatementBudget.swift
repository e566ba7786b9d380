import FhirBlocksStore
import GRDB
import GRDBSQLite

/// A time budget for the statements run on one SQLite connection, kept by SQLite's progress
/// handler: SQLite calls it every ``interval`` virtual-machine instructions while a statement
/// runs, and it stops the statement (`SQLITE_INTERRUPT`) once the deadline has passed. The
/// calls are counted, a deterministic measure of the work done (``steps``).
///
/// Used on the connection's own thread only, for the duration of ``run(_:budget:interval:operation:_:)``.
final class SQLiteStatementBudget {
    /// How many instructions SQLite runs between two checks by default (a check reads the
    /// clock: a few nanoseconds against some microseconds of work).
    static let defaultInterval: Int32 = 1000

    /// When the statements must stop, nil for never.
    private let deadline: ContinuousClock.Instant?
    /// Instructions between two calls of the handler.
    let interval: Int32
    /// How many times the handler was called.
    private(set) var ticks = 0
    /// Whether the deadline stopped a statement.
    private(set) var exceeded = false

    private init(deadline: ContinuousClock.Instant?, interval: Int32) {
        self.deadline = deadline
        self.interval = interval
    }

    /// The virtual-machine instructions counted so far, to within ``interval``.
    var steps: Int { ticks * Int(interval) }

    /// Runs `body` on `db` with the budget installed (`budget` from now; nil only counts), then
    /// removes it. A statement the deadline stopped makes this throw
    /// ``FhirBlocksStore/TrustStoreError/timedOut(_:)`` naming `operation`, whatever error
    /// `body` reported for it.
    static func run<T>(_ db: Database, budget: Duration?, interval: Int32 = defaultInterval, operation: String,
                       _ body: (SQLiteStatementBudget) throws -> T) throws -> T {
        let meter = SQLiteStatementBudget(deadline: budget.map { ContinuousClock.now.advanced(by: $0) }, interval: max(1, interval))
        guard let connection = db.sqliteConnection else { throw TrustStoreError.unavailable("SQLite: the connection is closed") }
        sqlite3_progress_handler(connection, meter.interval, { context in
            guard let context else { return 0 }
            return Unmanaged<SQLiteStatementBudget>.fromOpaque(context).takeUnretainedValue().tick()
        }, Unmanaged.passUnretained(meter).toOpaque())
        defer { sqlite3_progress_handler(connection, 0, nil, nil) }
        return try withExtendedLifetime(meter) {
            do {
                return try body(meter)
            } catch {
                if meter.exceeded { throw TrustStoreError.timedOut(operation) }
                throw error
            }
        }
    }

    /// The handler: counts, and asks SQLite to stop (non-zero) once past the deadline.
    private func tick() -> Int32 {
        ticks += 1
        guard let deadline, ContinuousClock.now >= deadline else { return 0 }
        exceeded = true
        return 1
    }
}
