import FhirBlocksStore
import GRDB

/// The SQLite schema of the trust store: ``TrustSchema``'s migrations for SQLite, as GRDB
/// migrations under their names.
enum SQLiteTrustSchema {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        for migration in TrustSchema.migrations(for: .sqlite) {
            migrator.registerMigration(migration.name) { db in
                for statement in migration.statements(.sqlite) { try db.execute(sql: statement) }
                // Before the migrations after it: without the columns they add (`hull_span`).
                if migration.reindexesResources { try SQLiteSearchIndex.backfill(in: db, hullSpan: false) }
            }
        }
        return migrator
    }()
}
