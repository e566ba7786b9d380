import GRDB

extension HealthDatabase {
    /// The `store_info` key of a store whose file is to be vacuumed when it is next opened.
    static let vacuumPendingKey = "vacuum_pending"

    /// Vacuums a store marked `vacuum_pending` (by v20-type-codes, whose rebuilt `sample` left the
    /// old table's pages free), truncates the write-ahead log the vacuum filled, then unmarks it:
    /// the file shrinks to its pages in use. Runs at open, before any reader. Only space is at
    /// stake, so a vacuum that fails (a disk too full for its copy) never stops the store from
    /// opening: the mark stays and the next open tries again; a crash before the unmarking only
    /// vacuums again.
    func vacuumIfPending() {
        let pending = try? write { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM store_info WHERE key = ?", arguments: [Self.vacuumPendingKey]) }
        guard pending == true else { return }
        do {
            try writer.vacuum()
            _ = try? writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            try write { db in try db.execute(sql: "DELETE FROM store_info WHERE key = ?", arguments: [Self.vacuumPendingKey]) }
        } catch {
            // The mark stays: the next open vacuums again.
        }
    }

    /// The schema, as migrations from the first version on. Never edit a shipped migration:
    /// add a new one.
    ///
    /// In the clear: types (identifiers; `sample` holds codes since v20), start and end times, UUIDs, sources, correlation and
    /// workout links, workout activity types, and the change sequence. Sealed (`sealed`
    /// columns): values, metadata, devices, workout totals, characteristics. Sync identifiers
    /// and metadata are findable only through keyed HMACs (`sync_id`, `metadata_index`).
    ///
    /// v2 adds value blocks (``ValueBlock``): `value_block` holds one sealed block of the
    /// canonical values of up to 4,096 quantity samples of one type saved together, and a
    /// sample row points at its entry with `block_id` and `block_index`. Rows saved before v2,
    /// and rows whose block was dissolved by a deletion, keep NULLs and only their own record
    /// (since v22 a dissolved block's row stays, its sealed bytes empty).
    ///
    /// v3 adds the log of verifiable clinical records shared with apps.
    ///
    /// v4 adds the owner's source priority per quantity type (`source_priority`).
    ///
    /// v5-rollups adds statistics rollups (``RollupPage``): `rollup_page` holds one sealed page
    /// per quantity type and UTC day that has samples, and the partial index `sample_long_span`
    /// finds the samples too long to roll up. A store that already holds quantity samples gets
    /// `rollups_pending` in `store_info`: its pages are built when it is next opened with its key
    /// (`rebuildRollupsIfPending`), in one transaction, before any statistics read.
    ///
    /// v6-workout-routes adds workout routes' locations (``RouteBlock``): `route_block` holds
    /// a route's locations, up to 1,024 per sealed block, by the route's row and the block's
    /// position, with the block's first and last timestamps in the clear. Deleting the route
    /// row deletes its blocks.
    /// v7-record-connections adds the owner's connections to health-records providers
    /// (``HKHealthRecordsConnection``): `record_connection` holds one sealed row per connection,
    /// found by a keyed hash of its name; nothing about it is in the clear.
    /// v8-recently-deleted adds the owner's "Recently deleted" list: `recently_deleted` holds,
    /// for 30 days, each sample the owner or an app deleted, moved there from `sample` in the
    /// delete's transaction with its sealed record unchanged (bound to its old UUID, type, kind
    /// and dates, which stay in the clear as in `sample`), its correlation members as child rows,
    /// the UUIDs of its workout links, and (`recently_deleted_route_block`) a route's sealed
    /// location blocks (see `HealthDatabase+RecentlyDeleted.swift`).
    ///
    /// v9-owner-profile adds the owner's profile (``HKOwnerProfile``): `owner_profile` holds one
    /// sealed row, the name and the Medical ID; the date of birth, biological sex and blood type
    /// are the `characteristic` rows HealthKit's characteristic reads return.
    ///
    /// v13-clinical-measurements adds per-object read authorization (vision prescriptions):
    /// `object_read_grant` holds, per app, the UUIDs of the objects the person chose to let it
    /// read (``HKHealthStore/requestPerObjectReadAuthorization(for:predicate:)``). Electrocardiograms,
    /// audiograms and prescriptions themselves are `sample` rows, their details sealed.
    ///
    /// v18-sync-column-index adds no table: a sample's sync identifier and version are found
    /// through its own `sync_id` and `sync_version` instead of `metadata_index` rows
    /// (`HealthDatabase+SyncIndex.swift`); a store that has index rows is marked
    /// `sync_index_pending`, and those rows are deleted when it is next opened with its key.
    ///
    /// v19-devices adds `device`: each distinct device a sample names, its JSON sealed, found by
    /// the keyed hash of that JSON (`HealthDatabase+Devices.swift`). A sample saved since refers
    /// to its device by that hash inside its sealed record instead of embedding the JSON
    /// (``SamplePayload``), so equal devices share one row; rows saved before keep their embedded
    /// device and are read as they are (not rewritten). Health records keep theirs embedded (their
    /// content version hashes the record). Device rows are not deleted with samples.
    ///
    /// v20-type-codes stores a sample's type as a small integer code (``SampleTypeCode``):
    /// `sample_type` maps each code to its type identifier, and `sample` is rebuilt (SQLite's
    /// table-rebuild procedure, foreign keys off and checked before the commit) with `type
    /// INTEGER NOT NULL REFERENCES sample_type(id)` holding the code (so a row can never name a
    /// code the map lacks, e.g. written by an older process that had the store open), every row keeping its id, anchor and other columns,
    /// and every index recreated. Codes are assigned on a type's first save and never reused; a
    /// type identifier still authenticates each sealed record, value block and rollup page, so
    /// nothing is re-sealed. The other tables keep their identifier text. The old table's pages
    /// are free pages after the rebuild, so a store that had samples is marked `vacuum_pending`
    /// and is vacuumed (outside any transaction) when it is next opened (`vacuumIfPending`).
    ///
    /// v21-compact-formats changes no table: it marks stores whose records may use the compact
    /// route-block, value-block and metadata forms, which older builds refuse as newer.
    ///
    /// v22-leaner-indexes drops the index on `sample.block_id` (a dissolved block's rows are found
    /// by the UUIDs its entries name, and its `value_block` row stays with its sealed bytes emptied)
    /// and rebuilds `metadata_index` without a rowid, keyed by (key, value hash, row id), each key
    /// hash held once in `metadata_key`; a store that had samples is marked `vacuum_pending`.
    ///
    /// v23-import-runs adds `import_run`: runs of an import's records that were all stored, by a keyed fingerprint of their
    /// content, so that an import of the same records again counts them as stored without looking each one up
    /// (`HKHealthStore+ImportRuns.swift`). A run holds only while no quantity, category or quantity series sample with a sync
    /// identifier has been deleted or had its sync identifier, version, type, kind, source or parent changed: the triggers
    /// `sample_synced_deleted`
    /// and `sample_synced_changed` count such changes in `store_info`'s `import_run_generation`, and a run recorded at an
    /// earlier count is never used. A migration that rebuilds `sample` must create both triggers again.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE store_info (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL);
                INSERT INTO store_info (key, value) VALUES ('sequence', 0), ('pruned_through', 0);
                CREATE TABLE source (
                    id INTEGER PRIMARY KEY,
                    bundle_identifier TEXT NOT NULL,
                    name TEXT NOT NULL,
                    version TEXT,
                    product_type TEXT,
                    os_version TEXT NOT NULL,
                    UNIQUE (bundle_identifier, name, version, product_type, os_version)
                );
                CREATE INDEX source_bundle ON source(bundle_identifier);
                CREATE TABLE sample (
                    id INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL UNIQUE,
                    type TEXT NOT NULL,
                    kind INTEGER NOT NULL,
                    start REAL NOT NULL,
                    "end" REAL NOT NULL,
                    source_id INTEGER NOT NULL REFERENCES source(id),
                    parent_id INTEGER REFERENCES sample(id),
                    activity_type INTEGER,
                    anchor INTEGER NOT NULL,
                    sync_id BLOB,
                    sync_version INTEGER,
                    sealed BLOB NOT NULL
                );
                CREATE INDEX sample_type_start ON sample(type, start);
                CREATE INDEX sample_anchor ON sample(anchor);
                CREATE INDEX sample_parent ON sample(parent_id) WHERE parent_id IS NOT NULL;
                CREATE INDEX sample_sync ON sample(sync_id) WHERE sync_id IS NOT NULL;
                CREATE TABLE metadata_index (
                    sample_id INTEGER NOT NULL REFERENCES sample(id) ON DELETE CASCADE,
                    key_hash BLOB NOT NULL,
                    value_hash BLOB
                );
                CREATE INDEX metadata_index_lookup ON metadata_index(key_hash, value_hash);
                CREATE INDEX metadata_index_sample ON metadata_index(sample_id);
                CREATE TABLE workout_association (
                    workout_id INTEGER NOT NULL REFERENCES sample(id) ON DELETE CASCADE,
                    sample_id INTEGER NOT NULL REFERENCES sample(id) ON DELETE CASCADE,
                    PRIMARY KEY (workout_id, sample_id)
                ) WITHOUT ROWID;
                CREATE INDEX workout_association_sample ON workout_association(sample_id);
                CREATE TABLE deleted_object (
                    anchor INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL,
                    type TEXT NOT NULL,
                    source_id INTEGER NOT NULL REFERENCES source(id),
                    deleted_at REAL NOT NULL,
                    sealed BLOB
                );
                CREATE INDEX deleted_object_deleted_at ON deleted_object(deleted_at);
                CREATE TABLE authorization (
                    bundle_identifier TEXT NOT NULL,
                    type TEXT NOT NULL,
                    share INTEGER NOT NULL,
                    read INTEGER NOT NULL,
                    decided_at REAL NOT NULL,
                    PRIMARY KEY (bundle_identifier, type)
                ) WITHOUT ROWID;
                CREATE TABLE characteristic (type TEXT PRIMARY KEY NOT NULL, sealed BLOB NOT NULL);
                CREATE TABLE preferred_unit (bundle_identifier TEXT NOT NULL, type TEXT NOT NULL, unit TEXT NOT NULL,
                                             PRIMARY KEY (bundle_identifier, type)) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                CREATE TABLE value_block (id INTEGER PRIMARY KEY, type TEXT NOT NULL, sealed BLOB NOT NULL);
                ALTER TABLE sample ADD COLUMN block_id INTEGER REFERENCES value_block(id);
                ALTER TABLE sample ADD COLUMN block_index INTEGER;
                CREATE INDEX sample_block ON sample(block_id) WHERE block_id IS NOT NULL;
                """)
        }
        // v3: the log of verifiable records shared with apps (per query, one time): who, when,
        // and, sealed, which records.
        migrator.registerMigration("v3") { db in
            try db.execute(sql: """
                CREATE TABLE verifiable_record_share (
                    id INTEGER PRIMARY KEY,
                    bundle_identifier TEXT NOT NULL,
                    app_name TEXT NOT NULL,
                    shared_at REAL NOT NULL,
                    declined INTEGER NOT NULL,
                    sealed BLOB NOT NULL
                );
                """)
        }
        // v4: the owner's source order per quantity type (the Health app's "Data Sources &
        // Access" list), by bundle identifier, highest priority first.
        migrator.registerMigration("v4") { db in
            try db.execute(sql: """
                CREATE TABLE source_priority (
                    type TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    bundle_identifier TEXT NOT NULL,
                    PRIMARY KEY (type, position)
                ) WITHOUT ROWID;
                """)
        }
        // v5-rollups: statistics rollups, one sealed page per quantity type and UTC day.
        migrator.registerMigration("v5-rollups") { db in
            try db.execute(sql: """
                CREATE TABLE rollup_page (
                    type TEXT NOT NULL,
                    page INTEGER NOT NULL,
                    sealed BLOB NOT NULL,
                    PRIMARY KEY (type, page)
                ) WITHOUT ROWID;
                CREATE INDEX sample_long_span ON sample(type, start) WHERE \(RollupPage.longCondition);
                INSERT INTO store_info (key, value) SELECT 'rollups_pending', 1 WHERE EXISTS (SELECT 1 FROM sample WHERE kind = 1);
                """)
        }
        // v6-workout-routes: the sealed location blocks of workout routes.
        migrator.registerMigration("v6-workout-routes") { db in
            try db.execute(sql: """
                CREATE TABLE route_block (
                    sample_id INTEGER NOT NULL REFERENCES sample(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    first REAL NOT NULL,
                    last REAL NOT NULL,
                    count INTEGER NOT NULL,
                    sealed BLOB NOT NULL,
                    PRIMARY KEY (sample_id, position)
                ) WITHOUT ROWID;
                """)
        }
        // v7-record-connections: connections to health-records providers, sealed whole.
        migrator.registerMigration("v7-record-connections") { db in
            try db.execute(sql: """
                CREATE TABLE record_connection (
                    name_hash BLOB PRIMARY KEY NOT NULL,
                    sealed BLOB NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        // v8-recently-deleted: deleted samples kept, sealed as at rest, for 30 days (restorable by the owner).
        migrator.registerMigration("v8-recently-deleted") { db in
            try db.execute(sql: """
                CREATE TABLE recently_deleted (
                    id INTEGER PRIMARY KEY,
                    parent_id INTEGER REFERENCES recently_deleted(id) ON DELETE CASCADE,
                    uuid BLOB NOT NULL,
                    type TEXT NOT NULL,
                    kind INTEGER NOT NULL,
                    start REAL NOT NULL,
                    "end" REAL NOT NULL,
                    activity_type INTEGER,
                    source_id INTEGER NOT NULL REFERENCES source(id),
                    deleted_at REAL NOT NULL,
                    links BLOB,
                    sealed BLOB NOT NULL
                );
                CREATE INDEX recently_deleted_parent ON recently_deleted(parent_id) WHERE parent_id IS NOT NULL;
                CREATE INDEX recently_deleted_deleted_at ON recently_deleted(deleted_at);
                CREATE TABLE recently_deleted_route_block (
                    item_id INTEGER NOT NULL REFERENCES recently_deleted(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    first REAL NOT NULL,
                    last REAL NOT NULL,
                    count INTEGER NOT NULL,
                    sealed BLOB NOT NULL,
                    PRIMARY KEY (item_id, position)
                ) WITHOUT ROWID;
                """)
        }
        // v9-owner-profile: the owner's name and Medical ID, one sealed row (the date of birth, sex
        // and blood type stay characteristics).
        migrator.registerMigration("v9-owner-profile") { db in
            try db.execute(sql: """
                CREATE TABLE owner_profile (
                    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                    sealed BLOB NOT NULL
                );
                """)
        }
        // v10–v12 go above this line: v13 is registered last (migrations run in registration order).
        // v13-clinical-measurements: the vision prescriptions (per-object reads) each app may read,
        // as the person chose them; the UUID in the clear, as in `sample`.
        migrator.registerMigration("v13-clinical-measurements") { db in
            try db.execute(sql: """
                CREATE TABLE object_read_grant (
                    bundle_identifier TEXT NOT NULL,
                    uuid BLOB NOT NULL,
                    type TEXT NOT NULL,
                    granted_at REAL NOT NULL,
                    PRIMARY KEY (bundle_identifier, uuid)
                ) WITHOUT ROWID;
                """)
        }
        // v14-medications: the medications the person tracks (``HKUserAnnotatedMedication``): one
        // sealed row per medication concept, found by a keyed hash of the concept's identifier (so
        // an import adds a concept once); their dose events are `sample` rows.
        migrator.registerMigration("v14-medications") { db in
            try db.execute(sql: """
                CREATE TABLE medication (
                    id INTEGER PRIMARY KEY,
                    concept_hash BLOB NOT NULL UNIQUE,
                    sealed BLOB NOT NULL
                );
                """)
        }
        // v15-share-links: the links the owner shared (``HKSharedLink``): one sealed row per link,
        // found by a keyed hash of its id; nothing about a link is in the clear.
        migrator.registerMigration("v15-share-links") { db in
            try db.execute(sql: """
                CREATE TABLE shared_link (
                    id_hash BLOB PRIMARY KEY NOT NULL,
                    sealed BLOB NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        // v16-workout-effort: effort samples related to a workout or one of its activities
        // (``HKWorkoutEffortRelationship``), each relationship numbered in the change sequence.
        migrator.registerMigration("v16-workout-effort") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS workout_effort (
                    workout_id INTEGER NOT NULL REFERENCES sample(id) ON DELETE CASCADE,
                    sample_id INTEGER NOT NULL REFERENCES sample(id) ON DELETE CASCADE,
                    activity_uuid BLOB,
                    anchor INTEGER NOT NULL,
                    PRIMARY KEY (workout_id, sample_id)
                ) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS workout_effort_anchor ON workout_effort(anchor);
                CREATE INDEX IF NOT EXISTS workout_effort_sample ON workout_effort(sample_id);
                """)
        }
        // v18-sync-column-index: sync identifiers and versions are found through the rows' own `sync_id` and
        // `sync_version` (`HealthDatabase+SyncIndex.swift`); a store with metadata index rows is marked so that
        // those rows go when it is next opened with its key (`moveSyncIndexIfPending`).
        migrator.registerMigration("v18-sync-column-index") { db in
            try db.execute(sql: """
                INSERT OR IGNORE INTO store_info (key, value) SELECT '\(HealthDatabase.syncIndexPendingKey)', 1
                WHERE EXISTS (SELECT 1 FROM metadata_index);
                """)
        }
        // v17-record-patients: the patients clinical records refer to, as an import read them from
        // a Patient resource (``HKHealthStore/saveHealthRecordPatient(reference:details:)``): one
        // sealed row per reference, found by its keyed hash; nothing about a patient is in the clear.
        migrator.registerMigration("v17-record-patients") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS record_patient (
                    reference_hash BLOB PRIMARY KEY NOT NULL,
                    sealed BLOB NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        // v19-devices: each distinct device once, sealed, by the keyed hash of its JSON; records
        // saved from now on refer to it (`HealthDatabase+Devices.swift`).
        migrator.registerMigration("v19-devices") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS device (
                    hash BLOB PRIMARY KEY NOT NULL,
                    sealed BLOB NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        // v20-type-codes: `sample.type` holds a code from `sample_type` instead of the identifier text
        // (``SampleTypeCode``); the table is rebuilt (https://sqlite.org/lang_altertable.html#otheralter) with
        // its rows' ids, and the migrator keeps foreign keys off until it has checked them before the commit.
        migrator.registerMigration("v20-type-codes") { db in
            try db.execute(sql: """
                CREATE TABLE sample_type (id INTEGER PRIMARY KEY, identifier TEXT NOT NULL UNIQUE);
                INSERT INTO sample_type (identifier) SELECT DISTINCT type FROM sample ORDER BY type;
                CREATE TABLE sample_new (
                    id INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL UNIQUE,
                    type INTEGER NOT NULL REFERENCES sample_type(id),
                    kind INTEGER NOT NULL,
                    start REAL NOT NULL,
                    "end" REAL NOT NULL,
                    source_id INTEGER NOT NULL REFERENCES source(id),
                    parent_id INTEGER REFERENCES sample(id),
                    activity_type INTEGER,
                    anchor INTEGER NOT NULL,
                    sync_id BLOB,
                    sync_version INTEGER,
                    sealed BLOB NOT NULL,
                    block_id INTEGER REFERENCES value_block(id),
                    block_index INTEGER
                );
                INSERT INTO sample_new (id, uuid, type, kind, start, "end", source_id, parent_id, activity_type, anchor, sync_id,
                                        sync_version, sealed, block_id, block_index)
                SELECT s.id, s.uuid, t.id, s.kind, s.start, s."end", s.source_id, s.parent_id, s.activity_type, s.anchor, s.sync_id,
                       s.sync_version, s.sealed, s.block_id, s.block_index
                FROM sample s JOIN sample_type t ON t.identifier = s.type ORDER BY s.id;
                DROP TABLE sample;
                ALTER TABLE sample_new RENAME TO sample;
                CREATE INDEX sample_type_start ON sample(type, start);
                CREATE INDEX sample_anchor ON sample(anchor);
                CREATE INDEX sample_parent ON sample(parent_id) WHERE parent_id IS NOT NULL;
                CREATE INDEX sample_sync ON sample(sync_id) WHERE sync_id IS NOT NULL;
                CREATE INDEX sample_block ON sample(block_id) WHERE block_id IS NOT NULL;
                CREATE INDEX sample_long_span ON sample(type, start) WHERE \(RollupPage.longCondition);
                INSERT OR IGNORE INTO store_info (key, value) SELECT '\(HealthDatabase.vacuumPendingKey)', 1 WHERE EXISTS (SELECT 1 FROM sample);
                """)
        }
        // No change of tables: a marker. From here on saves write route blocks in format 2
        // (``RouteBlock``), value blocks in format 2 (``ValueBlock``) and binary metadata
        // (``SamplePayload``'s flag 32), which builds before it cannot read; with the marker they
        // refuse the store as written by a newer OpenHealthKit instead of failing on a record.
        migrator.registerMigration("v21-compact-formats") { _ in }
        // v22-leaner-indexes: about 50 MiB less on a two-year import. `sample_block` goes: a value block's rows are
        // found by the UUIDs its entries name (`dissolveBlocks`), and a dissolved block's row stays with its sealed bytes
        // emptied. `metadata_index` is keyed by what it is looked up by, (key, value hash, row id), without a rowid
        // (https://sqlite.org/withoutrowid.html): the table and its lookup index were the same rows twice. Its key is the
        // id of a `metadata_key` row holding the key hash once, instead of 16 bytes in every row and in the sample index.
        // A value without an index form, NULL before, is an empty hash (``MetadataIndexWriter``).
        migrator.registerMigration("v22-leaner-indexes") { db in
            try db.execute(sql: """
                DROP INDEX IF EXISTS sample_block;
                CREATE TABLE metadata_key (id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE);
                INSERT INTO metadata_key (hash) SELECT DISTINCT key_hash FROM metadata_index ORDER BY key_hash;
                CREATE TABLE metadata_index_new (
                    key_id INTEGER NOT NULL REFERENCES metadata_key(id),
                    value_hash BLOB NOT NULL,
                    sample_id INTEGER NOT NULL REFERENCES sample(id) ON DELETE CASCADE,
                    PRIMARY KEY (key_id, value_hash, sample_id)
                ) WITHOUT ROWID;
                INSERT OR IGNORE INTO metadata_index_new (key_id, value_hash, sample_id)
                    SELECT k.id, coalesce(m.value_hash, X''), m.sample_id FROM metadata_index m JOIN metadata_key k ON k.hash = m.key_hash
                    ORDER BY 1, 2, 3;
                DROP TABLE metadata_index;
                ALTER TABLE metadata_index_new RENAME TO metadata_index;
                CREATE INDEX metadata_index_sample ON metadata_index(sample_id);
                INSERT OR IGNORE INTO store_info (key, value) SELECT '\(HealthDatabase.vacuumPendingKey)', 1 WHERE EXISTS (SELECT 1 FROM sample);
                """)
        }
        // v23-import-runs: an import's runs of records found all stored, valid while the count of changes to stored quantity
        // and category samples with a sync identifier (the kinds an import's plain records are stored as, and quantity
        // series) is the one they were recorded at. Counted by triggers, so that every writer counts them, whichever build
        // it runs.
        migrator.registerMigration("v23-import-runs") { db in
            let bump = "UPDATE store_info SET value = CAST(value AS INTEGER) + 1 WHERE key = '\(HealthDatabase.importRunGenerationKey)'"
            // The kinds a quantity or category type's sample is stored as (a quantity series too: found by the same lookup).
            let kinds = [SampleKind.quantity, .category, .quantitySeries].map { String($0.rawValue) }.joined(separator: ", ")
            let watched = "OLD.sync_id IS NOT NULL AND OLD.kind IN (\(kinds))"
            try db.execute(sql: """
                CREATE TABLE import_run (
                    domain TEXT NOT NULL,
                    fingerprint BLOB NOT NULL,
                    generation INTEGER NOT NULL,
                    PRIMARY KEY (domain, fingerprint)
                ) WITHOUT ROWID;
                INSERT OR IGNORE INTO store_info (key, value) VALUES ('\(HealthDatabase.importRunGenerationKey)', 0);
                CREATE TRIGGER sample_synced_deleted AFTER DELETE ON sample WHEN \(watched)
                BEGIN \(bump); END;
                CREATE TRIGGER sample_synced_changed AFTER UPDATE OF sync_id, sync_version, type, kind, source_id, parent_id ON sample
                WHEN \(watched)
                BEGIN \(bump); END;
                """)
        }
        return migrator
    }()
}
