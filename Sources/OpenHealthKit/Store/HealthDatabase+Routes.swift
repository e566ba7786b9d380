import Foundation
import GRDB

extension HealthDatabase {
    /// The sealed location blocks of one route, in order, if the route is in the store and its
    /// source is inside `scope`; only the blocks that overlap `interval` when one is given.
    /// - Throws: `errorNoData` when the route is absent or hidden from the caller (the two are
    ///   not told apart, so a hidden route's existence does not leak).
    func routeBlocks(route uuid: UUID, scope: ReadScope, interval: DateInterval?) async throws -> [RouteBlock] {
        try await readAsync { db in
            var arguments: StatementArguments = [uuid.databaseBlob, SampleKind.workoutRoute.rawValue]
            let visible = scope.sql(column: "s.source_id", arguments: &arguments)
            guard let rowID = try Int64.fetchOne(db, sql: "SELECT s.id FROM sample s WHERE s.uuid = ? AND s.kind = ? AND \(visible)",
                                                 arguments: arguments) else {
                throw HKError(.errorNoData, "the workout route is not in the store")
            }
            var sql = "SELECT position, first, last, count, sealed FROM route_block WHERE sample_id = ?"
            var blockArguments: StatementArguments = [rowID]
            if let interval {
                sql += " AND last >= ? AND first <= ?"
                blockArguments += [interval.start.timeIntervalSinceReferenceDate, interval.end.timeIntervalSinceReferenceDate]
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY position", arguments: blockArguments).map { row in
                RouteBlock(position: row[0], first: row[1], last: row[2], count: row[3], sealed: row[4])
            }
        }
    }
}
