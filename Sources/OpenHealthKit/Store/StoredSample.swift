import Foundation
import GRDB

/// The kinds of row in the `sample` table.
enum SampleKind: Int64, Sendable {
    case quantity = 1
    case category = 2
    case correlation = 3
    case workout = 4
    case clinicalRecord = 5
    case verifiableRecord = 6
    case activitySummary = 7
    case workoutRoute = 8
    /// An electrocardiogram (``HKElectrocardiogram``): its voltages packed in the extra section
    /// (``ElectrocardiogramDetails``).
    case electrocardiogram = 30
    /// An audiogram (``HKAudiogramSample``): its sensitivity points in the extra section.
    case audiogram = 31
    /// A vision prescription (``HKVisionPrescription``): its lens specifications in the extra section.
    case visionPrescription = 32
    /// A medication dose event (``HKMedicationDoseEvent``): its log status the primary value,
    /// its medication, schedule and quantities the extra section (``MedicationDoseDetails``).
    case medicationDoseEvent = 33
    /// A quantity series sample (``HKQuantitySeriesSampleBuilder``): its quantities are
    /// `quantity` rows whose `parent_id` is the series row, hidden from sample queries.
    case quantitySeries = 9
    /// A heartbeat series sample: its beats are sealed in the record's extra section.
    case heartbeatSeries = 10
    /// A state of mind (``HKStateOfMind``): its valence is the primary value, its kind, labels
    /// and associations the extra section (``StateOfMindDetails``).
    case stateOfMind = 20
    /// A scored assessment (GAD-7, PHQ-9): its score is the primary value, its answers the
    /// extra section (``ScoredAssessmentDetails``).
    case scoredAssessment = 21
}

/// A sample ready for insertion: validated, converted to its type's canonical unit and sealed.
/// Preparing happens outside the write transaction so sealing never holds the writer lock.
struct PreparedSample: Sendable {
    var uuid: UUID
    var type: String
    var kind: SampleKind
    var start: Double
    var end: Double
    var activityType: Int64?
    var syncHash: Data?
    var syncVersion: Int64?
    var sealed: Data
    /// The sealed record's primary value bits (for a quantity, its value in the type's
    /// canonical unit), which a value block repeats.
    var primaryBits: UInt64
    /// (key hash, value hash or nil when the value has no equality form)
    var metadataIndex: [MetadataIndexEntry]
    var members: [PreparedSample]
    /// The value-block entry planned for this sample (``ValueBlockPlan``), if any.
    var blockSlot: ValueBlockPlan.Slot? = nil
    /// Whether a stored sample with the same `syncHash` is replaced whatever its version: health
    /// records are keyed by source, resource type and id (or by card), and importing one again
    /// replaces it.
    var replacesSameKey = false
    /// The source revision this sample is recorded under, when not the saving store's own
    /// (the owner's import of another device's export).
    var revision: SourceRevisionRecord? = nil
    /// A workout route's sealed location blocks, inserted with its row.
    var routeBlocks: [RouteBlock] = []
    /// The workout a route is associated with in the transaction that saves it.
    var workoutLink: PreparedWorkoutLink? = nil
    /// When `syncHash` is the sync identifier's keyed hash for this bundle identifier, and the
    /// sync metadata was left out of `metadataIndex`: the row's columns answer it only when the
    /// row is recorded under that bundle identifier (otherwise the save indexes it).
    var syncColumnsBundle: String? = nil
    /// The device the sealed record refers to by its keyed hash (v19-devices): its row is
    /// stored with the sample's unless the store has it.
    var device: PreparedDevice? = nil
}

/// How a route being saved finds its workout: by UUID, or by the sync identifier hash its
/// (same-source) workout was saved with.
enum PreparedWorkoutLink: Sendable {
    /// The workout's UUID blob, and the bundle identifier that must have saved it (nil: any).
    case uuid(Data, requiredSource: String?)
    case syncHash(Data)
}

/// One `metadata_index` row of a sample: the keyed hashes of a metadata key and of its value's
/// index form (nil for a value without one, such as a quantity: found by its key alone).
struct MetadataIndexEntry: Sendable {
    var keyHash: Data
    var valueHash: Data?

    /// The SQL of the `metadata_key` id of the key hash bound to its `?` (NULL when no row
    /// names that key: then no index row does either).
    static let keyID = "(SELECT id FROM metadata_key WHERE hash = ?)"
}

/// Writes `metadata_index` rows (v22-leaner-indexes): each distinct key hash is one
/// `metadata_key` row, and an index row holds that row's id, the value hash and the sample's
/// row id, its primary key, so a row written twice is one row. A value without an index form
/// is an empty hash: no lookup of a value hash (16 bytes) matches it; a lookup by key finds it.
/// One writer serves one transaction (it remembers the key ids it found or added).
struct MetadataIndexWriter {
    private let addKey: Statement
    private let findKey: Statement
    private let insert: Statement
    /// The `metadata_key` ids of the key hashes written so far (a save names a few keys, many times).
    private var keyIDs: [Data: Int64] = [:]

    init(_ db: Database) throws {
        addKey = try db.cachedStatement(sql: "INSERT INTO metadata_key (hash) VALUES (?) ON CONFLICT (hash) DO NOTHING")
        findKey = try db.cachedStatement(sql: "SELECT id FROM metadata_key WHERE hash = ?")
        insert = try db.cachedStatement(sql: """
            INSERT INTO metadata_index (key_id, value_hash, sample_id) VALUES (?, ?, ?) ON CONFLICT (key_id, value_hash, sample_id) DO NOTHING
            """)
    }

    /// Writes `entry` for the sample row `rowID`.
    mutating func write(_ entry: MetadataIndexEntry, rowID: Int64) throws {
        let keyID: Int64
        if let known = keyIDs[entry.keyHash] {
            keyID = known
        } else {
            try addKey.execute(arguments: [entry.keyHash])
            guard let found = try Int64.fetchOne(findKey, arguments: [entry.keyHash]) else {
                throw HealthStoreError(.corruptDatabase, "a metadata key could not be stored")
            }
            keyIDs[entry.keyHash] = found
            keyID = found
        }
        insert.setUncheckedArguments([keyID, entry.valueHash ?? Data(), rowID])
        try insert.execute()
    }
}

/// The source revision row a save writes under.
struct SourceRevisionRecord: Sendable, Hashable {
    var bundleIdentifier: String
    var name: String
    var version: String?
    var productType: String?
    var operatingSystemVersion: String

    init(_ revision: HKSourceRevision) {
        bundleIdentifier = revision.source.bundleIdentifier
        name = revision.source.name
        version = revision.version
        productType = revision.productType
        let os = revision.operatingSystemVersion
        operatingSystemVersion = "\(os.majorVersion).\(os.minorVersion).\(os.patchVersion)"
    }

    init(bundleIdentifier: String, name: String, version: String?, productType: String?, operatingSystemVersion: String) {
        self.bundleIdentifier = bundleIdentifier
        self.name = name
        self.version = version
        self.productType = productType
        self.operatingSystemVersion = operatingSystemVersion
    }

    var revision: HKSourceRevision {
        let parts = operatingSystemVersion.split(separator: ".").map { Int($0) ?? 0 }
        let os = OperatingSystemVersion(majorVersion: parts.first ?? 0, minorVersion: parts.count > 1 ? parts[1] : 0,
                                        patchVersion: parts.count > 2 ? parts[2] : 0)
        return HKSourceRevision(source: HKSource(name: name, bundleIdentifier: bundleIdentifier), version: version,
                                productType: productType, operatingSystemVersion: os)
    }
}
