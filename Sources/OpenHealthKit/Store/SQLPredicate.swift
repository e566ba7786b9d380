import Foundation
import GRDB

/// A predicate translated to SQL over the `sample` table (aliased `s`).
///
/// Sealed values (quantities, category values, workout totals, non-equality metadata
/// comparisons, devices) cannot be compared in SQL. For those the SQL `filter` is a sound
/// superset, and every SQL-decidable leaf is also selected as a 0/1 column so that
/// `PredicateEvaluator` can decide the whole tree on the decrypted sample without a second
/// query. When `needsResidualCheck` is false the SQL filter is exact and no column is added.
struct SQLPredicate {
    var filter: String
    var arguments: StatementArguments
    var leafColumns: [String] = []
    var leafArguments = StatementArguments()
    let needsResidualCheck: Bool
    let node: PredicateNode

    /// Translates `node`. With `seriesMembers` (statistics, which read a quantity series as its
    /// member rows) the object and from-workout leaves also match the member rows of a quantity
    /// series they match: members have their own UUIDs and no workout associations.
    init(_ node: PredicateNode, cipher: RecordCipher, seriesMembers members: Bool = false) {
        self.node = node
        self.needsResidualCheck = !node.isExactInSQL
        var arguments = StatementArguments()
        self.filter = Self.superset(node, cipher: cipher, members: members, arguments: &arguments)
        self.arguments = arguments
        if needsResidualCheck {
            var columns: [String] = []
            var leafArguments = StatementArguments()
            Self.collectLeaves(node, cipher: cipher, members: members, columns: &columns, arguments: &leafArguments)
            self.leafColumns = columns
            self.leafArguments = leafArguments
        }
    }

    /// The SQL for one node: exact when the node is, a superset otherwise.
    private static func superset(_ node: PredicateNode, cipher: RecordCipher, members: Bool, arguments: inout StatementArguments) -> String {
        if let exact = exactLeaf(node, cipher: cipher, members: members, arguments: &arguments) { return exact }
        switch node {
        case .and(let nodes):
            guard !nodes.isEmpty else { return "1" }
            return "(" + nodes.map { superset($0, cipher: cipher, members: members, arguments: &arguments) }.joined(separator: " AND ") + ")"
        case .or(let nodes):
            guard !nodes.isEmpty else { return "0" }
            return "(" + nodes.map { superset($0, cipher: cipher, members: members, arguments: &arguments) }.joined(separator: " OR ") + ")"
        case .not(let inner):
            if inner.isExactInSQL { return "NOT " + superset(inner, cipher: cipher, members: members, arguments: &arguments) }
            return "1"
        case .metadataAllowed(let key, _), .metadataCompare(let key, _, _):
            return metadataKeyExists(key, cipher: cipher, arguments: &arguments)
        default:
            return "1"
        }
    }

    /// SQL for a leaf SQL decides exactly, or nil for compound and residual nodes.
    private static func exactLeaf(_ node: PredicateNode, cipher: RecordCipher, members: Bool, arguments: inout StatementArguments) -> String? {
        switch node {
        case .constant(let value):
            return value ? "1" : "0"
        case .dates(let start, let end, let options):
            var parts: [String] = []
            if let start {
                parts.append(options.contains(.strictStartDate) ? "s.start >= ?" : "s.\"end\" >= ?")
                arguments += [start.timeIntervalSinceReferenceDate]
            }
            if let end {
                parts.append(options.contains(.strictEndDate) ? "s.\"end\" <= ?" : "s.start < ?")
                arguments += [end.timeIntervalSinceReferenceDate]
            }
            return parts.isEmpty ? "1" : "(" + parts.joined(separator: " AND ") + ")"
        case .uuids(let uuids):
            guard !uuids.isEmpty else { return "0" }
            for uuid in uuids { arguments += [uuid.databaseBlob] }
            guard members else { return "s.uuid IN (" + placeholders(uuids.count) + ")" }
            for uuid in uuids { arguments += [uuid.databaseBlob] }
            return "(s.uuid IN (" + placeholders(uuids.count) + ") OR s.parent_id IN (SELECT p.id FROM sample p WHERE p.kind = "
                + "\(SampleKind.quantitySeries.rawValue) AND p.uuid IN (" + placeholders(uuids.count) + ")))"
        case .sources(let bundles):
            guard !bundles.isEmpty else { return "0" }
            for bundle in bundles.sorted() { arguments += [bundle] }
            return "s.source_id IN (SELECT id FROM source WHERE bundle_identifier IN (" + placeholders(bundles.count) + "))"
        case .sourceRevisions(let revisions):
            guard !revisions.isEmpty else { return "0" }
            var alternatives: [String] = []
            for revision in revisions {
                var parts = ["bundle_identifier = ?"]
                arguments += [revision.bundleIdentifier]
                if let version = revision.version { parts.append("version = ?"); arguments += [version] }
                if let product = revision.productType { parts.append("product_type = ?"); arguments += [product] }
                alternatives.append("(" + parts.joined(separator: " AND ") + ")")
            }
            return "s.source_id IN (SELECT id FROM source WHERE " + alternatives.joined(separator: " OR ") + ")"
        case .metadataExists(let key):
            return metadataKeyExists(key, cipher: cipher, arguments: &arguments)
        case .metadataAllowed(let key, let values):
            let forms = values.compactMap(\.indexForm)
            guard forms.count == values.count else { return nil }
            guard !forms.isEmpty else { return "0" }
            arguments += [cipher.indexHash("mk", key)]
            for form in forms { arguments += [cipher.indexHash("mv", key, form)] }
            let indexed = "s.id IN (SELECT sample_id FROM metadata_index WHERE key_id = \(MetadataIndexEntry.keyID) AND value_hash IN ("
                + placeholders(forms.count) + "))"
            // Sync identifiers and versions are in the row's own columns (`HealthDatabase+SyncIndex.swift`).
            if key == HKMetadataKeySyncIdentifier {
                let identifiers = values.compactMap { value -> String? in
                    if case .string(let text) = value { return text }
                    return nil
                }
                guard !identifiers.isEmpty else { return indexed }
                for identifier in identifiers { arguments += [identifier] }
                let hashes = identifiers.map { _ in "SELECT \(HealthDatabase.syncHashFunctionName)(bundle_identifier, ?) FROM source" }
                return "(" + indexed + " OR s.sync_id IN (" + hashes.joined(separator: " UNION ALL ") + "))"
            }
            if key == HKMetadataKeySyncVersion {
                let versions = HealthDatabase.columnVersions(values)
                guard !versions.isEmpty else { return indexed }
                for version in versions { arguments += [version] }
                return "(" + indexed + " OR (" + HealthDatabase.syncRowCondition + " AND s.sync_version IN (" + placeholders(versions.count) + ")))"
            }
            return indexed
        case .workoutActivity(let type):
            arguments += [Int64(type.rawValue)]
            return "s.activity_type = ?"
        case .fromWorkout(let uuid):
            arguments += [uuid.databaseBlob]
            let associated = "SELECT a.sample_id FROM workout_association a JOIN sample w ON w.id = a.workout_id WHERE w.uuid = ?"
            guard members else { return "s.id IN (\(associated))" }
            arguments += [uuid.databaseBlob]
            return "(s.id IN (\(associated)) OR s.parent_id IN (SELECT p.id FROM sample p WHERE p.kind = "
                + "\(SampleKind.quantitySeries.rawValue) AND p.id IN (\(associated))))"
        case .workoutEffort(let workout, let activity):
            arguments += [workout.databaseBlob]
            var related = "SELECT e.sample_id FROM workout_effort e JOIN sample w ON w.id = e.workout_id WHERE w.uuid = ?"
            if let activity {
                arguments += [activity.databaseBlob]
                related += " AND e.activity_uuid = ?"
            }
            return "s.id IN (\(related))"
        case .noCorrelation:
            return "s.parent_id IS NULL"
        case .and, .or, .not:
            guard node.isExactInSQL else { return nil }
            switch node {
            case .and(let nodes):
                guard !nodes.isEmpty else { return "1" }
                return "(" + nodes.compactMap { exactLeaf($0, cipher: cipher, members: members, arguments: &arguments) }.joined(separator: " AND ") + ")"
            case .or(let nodes):
                guard !nodes.isEmpty else { return "0" }
                return "(" + nodes.compactMap { exactLeaf($0, cipher: cipher, members: members, arguments: &arguments) }.joined(separator: " OR ") + ")"
            case .not(let inner):
                return exactLeaf(inner, cipher: cipher, members: members, arguments: &arguments).map { "NOT " + $0 }
            default:
                return nil
            }
        case .devices, .deviceProperty, .metadataCompare, .quantity, .categoryValue, .categoryValues, .workoutDuration, .workoutTotal, .fhirResource,
             .stateOfMind, .electrocardiogram, .medication, .workoutMatch:
            return nil
        }
    }

    /// Every exact leaf or exact subtree, in the evaluator's traversal order, as a 0/1 column.
    private static func collectLeaves(_ node: PredicateNode, cipher: RecordCipher, members: Bool, columns: inout [String],
                                      arguments: inout StatementArguments) {
        if node.isExactInSQL, let sql = exactLeaf(node, cipher: cipher, members: members, arguments: &arguments) {
            columns.append("(\(sql))")
            return
        }
        switch node {
        case .and(let nodes), .or(let nodes):
            for child in nodes { collectLeaves(child, cipher: cipher, members: members, columns: &columns, arguments: &arguments) }
        case .not(let inner):
            collectLeaves(inner, cipher: cipher, members: members, columns: &columns, arguments: &arguments)
        default:
            break
        }
    }

    /// Samples whose metadata has `key`: its `metadata_index` rows, and for a sync identifier or
    /// version the rows that keep them in their own columns (`HealthDatabase.syncRowCondition`).
    private static func metadataKeyExists(_ key: String, cipher: RecordCipher, arguments: inout StatementArguments) -> String {
        arguments += [cipher.indexHash("mk", key)]
        let indexed = "s.id IN (SELECT sample_id FROM metadata_index WHERE key_id = \(MetadataIndexEntry.keyID))"
        if key == HKMetadataKeySyncIdentifier { return "(" + indexed + " OR (" + HealthDatabase.syncRowCondition + "))" }
        if key == HKMetadataKeySyncVersion { return "(" + indexed + " OR (" + HealthDatabase.syncRowCondition + " AND s.sync_version IS NOT NULL))" }
        return indexed
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }
}

extension UUID {
    /// The UUID's 16 bytes, as stored in `sample.uuid`.
    var databaseBlob: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }

    init?(databaseBlob data: Data) {
        guard data.count == 16 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: data) }
        self.init(uuid: bytes)
    }
}
