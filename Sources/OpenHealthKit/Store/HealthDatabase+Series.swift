import Foundation
import GRDB

extension HealthDatabase {
    /// The quantities of the quantity series among `series` (UUIDs of samples already read
    /// through the caller's scope), by series UUID, each series' quantities in start order.
    /// Samples that are not series are absent from the result.
    func seriesEntries(of series: [UUID]) async throws -> [UUID: [QuantitySeriesEntry]] {
        guard !series.isEmpty else { return [:] }
        return try await readAsync { db in
            let context = DecodingContext(cipher: cipher, db: db)
            var result: [UUID: [QuantitySeriesEntry]] = [:]
            for chunk in series.chunked(into: 500) {
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT \(Self.sampleColumns), p.uuid FROM sample s JOIN source src ON src.id = s.source_id
                    JOIN sample p ON p.id = s.parent_id
                    WHERE p.kind = ? AND p.uuid IN (\(SQLPredicate.placeholders(chunk.count))) ORDER BY s.start, s.id
                    """, arguments: StatementArguments([SampleKind.quantitySeries.rawValue] + chunk.map(\.databaseBlob)))
                while let row = try rows.next() {
                    let parentBlob: Data = row[Self.sampleColumnCount]
                    guard let parent = UUID(databaseBlob: parentBlob) else {
                        throw HealthStoreError(.corruptDatabase, "a quantity series has a malformed UUID")
                    }
                    let item = try DecodedSampleRow(row: row, context: context)
                    guard let member = try item.makeSample(members: [], context: context) as? HKQuantitySample else {
                        throw HealthStoreError(.corruptDatabase, "a quantity series holds a sample that is not a quantity")
                    }
                    result[parent, default: []].append(QuantitySeriesEntry(quantity: member.quantity,
                                                                           dateInterval: DateInterval(start: member.startDate, end: member.endDate)))
                }
            }
            return result
        }
    }

    /// The beats of one heartbeat series, if it is in the store and its source is inside `scope`.
    /// - Throws: `errorNoData` when the series is absent or hidden from the caller (the two are
    ///   not told apart, so a hidden series' existence does not leak).
    func heartbeats(of uuid: UUID, scope: ReadScope) async throws -> [HKHeartbeatSeriesSample.Heartbeat] {
        try await readAsync { db in
            var arguments: StatementArguments = [uuid.databaseBlob, SampleKind.heartbeatSeries.rawValue]
            let visible = scope.sql(column: "s.source_id", arguments: &arguments)
            guard let row = try Row.fetchOne(db, sql: """
                SELECT \(Self.sampleColumns) FROM sample s JOIN source src ON src.id = s.source_id WHERE s.uuid = ? AND s.kind = ? AND \(visible)
                """, arguments: arguments) else {
                throw HKError(.errorNoData, "the heartbeat series is not in the store")
            }
            let item = try DecodedSampleRow(row: row, context: DecodingContext(cipher: cipher, db: db))
            guard let extra = item.payload.extra else { throw HealthStoreError(.corruptDatabase, "a heartbeat series has no beats") }
            return try HeartbeatCodec.decode(extra)
        }
    }
}
