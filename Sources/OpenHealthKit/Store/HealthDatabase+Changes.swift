import GRDB

extension HealthDatabase {
    /// The store's change counter: the anchor of the newest committed change.
    func changeSequence() async throws -> Int64 {
        try await readAsync { db in try Self.sequence(db) }
    }

    /// The types and sources of the changes other writers (store objects or processes)
    /// committed after anchor `after` (saves and deletions), and the counter they reach. This
    /// object's own changes are left out (their anchors are recorded as they are written) and
    /// forgotten once passed.
    func changes(after anchor: Int64) async throws -> (changes: StoreChangeSet, through: Int64) {
        try await readAsync { db in
            var changes = StoreChangeSet()
            let through = try Self.sequence(db)
            guard through > anchor else { return (changes, through) }
            let own = ownAnchors.withLock { ranges in
                let inWindow = ranges.filter { $0.upperBound > anchor && $0.lowerBound <= through }
                ranges.removeAll { $0.upperBound <= through }
                return inWindow
            }
            if own.contains(where: { $0.lowerBound <= anchor + 1 && $0.upperBound >= through }) {
                return (changes, through)
            }
            var exclusion = ""
            var ownArguments: [Int64] = []
            for range in own {
                exclusion += " AND anchor NOT BETWEEN ? AND ?"
                ownArguments += [range.lowerBound, range.upperBound]
            }
            var arguments = StatementArguments([anchor, through] + ownArguments)
            arguments += StatementArguments([anchor, through] + ownArguments)
            for row in try Row.fetchAll(db, sql: """
                SELECT DISTINCT \(SampleTypeCode.identifier(of: "s.type")), src.bundle_identifier FROM sample s JOIN source src ON src.id = s.source_id
                WHERE s.anchor IN (SELECT anchor FROM sample WHERE anchor > ? AND anchor <= ?\(exclusion))
                UNION
                SELECT DISTINCT d.type, src.bundle_identifier FROM deleted_object d JOIN source src ON src.id = d.source_id
                WHERE d.anchor IN (SELECT anchor FROM deleted_object WHERE anchor > ? AND anchor <= ?\(exclusion))
                """, arguments: arguments) {
                changes.insert(type: row[0], source: row[1])
            }
            return (changes, through)
        }
    }
}
