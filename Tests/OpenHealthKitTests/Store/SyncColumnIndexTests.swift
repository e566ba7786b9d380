import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

/// Sync identifiers and versions are found through the rows' own `sync_id` and `sync_version`
/// instead of `metadata_index` rows, and an import's sync identifier is sealed in its compact
/// form: every metadata predicate finds what it found before, every sample reads back with the
/// same metadata, and a store written the old way is migrated without losing anything.
@Suite("Sync metadata in the rows' columns: predicates, compact records and the migration of old stores")
struct SyncColumnIndexTests {
    static let type = HKQuantityType(.heartRate)
    static let importRevision = HKSourceRevision(source: HKSource(name: "Watch", bundleIdentifier: "org.example.import"), version: "1",
                                                 productType: nil,
                                                 operatingSystemVersion: OperatingSystemVersion(majorVersion: 1, minorVersion: 0, patchVersion: 0))

    /// The samples: 0–11 with import sync identifiers (0–4 also tagged, 10–11 at version 2),
    /// 12–15 with an app's identifiers at versions 3, true, 2.0 and 1e16, 16–19 without sync
    /// metadata (16–17 tagged).
    static func samples(seed: UInt64) -> (samples: [HKQuantitySample], importIdentifiers: [String]) {
        var random = SplitMix64(seed: seed)
        var identifiers: [String] = []
        var samples: [HKQuantitySample] = []
        for index in 0..<20 {
            var metadata: [String: Any] = [:]
            if index < 12 {
                let digest = (0..<32).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                let identifier = MetadataCodec.importSyncPrefix + digest.map { String(format: "%02x", $0) }.joined()
                identifiers.append(identifier)
                metadata[HKMetadataKeySyncIdentifier] = identifier
                metadata[HKMetadataKeySyncVersion] = index < 10 ? 1 : 2
            } else if index < 16 {
                metadata[HKMetadataKeySyncIdentifier] = "app-sync-\(index)"
                metadata[HKMetadataKeySyncVersion] = ([3, true, 2.0, 1e16] as [Any])[index - 12]
            }
            if index < 5 || index == 16 || index == 17 { metadata["tag"] = "x" }
            if index == 3 { metadata[HKMetadataKeyHeartRateMotionContext] = 1 }
            let start = Samples.reference.addingTimeInterval(Double(index) * 60)
            samples.append(HKQuantitySample(type: type, quantity: HKQuantity(unit: Samples.bpm, doubleValue: 60 + Double(index)),
                                            start: start, end: start, metadata: metadata.isEmpty ? nil : metadata))
        }
        return (samples, identifiers)
    }

    /// Saves the samples: the import-shaped ones under another source, as an import does.
    static func save(_ samples: [HKQuantitySample], into store: HKHealthStore) async throws {
        try await store.save(Array(samples[0..<12]), recordedAs: Array(repeating: importRevision, count: 12))
        try await store.save(Array(samples[12...]))
    }

    /// The predicates compared, each with the sample indices it must find (nil: only compared
    /// between stores).
    static func predicates(_ identifiers: [String]) -> [(String, NSPredicate, Set<Int>?)] {
        let tagged = HKQuery.predicateForObjects(withMetadataKey: "tag", allowedValues: ["x"])
        let synced = HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncIdentifier)
        return [
            ("has a sync identifier", synced, Set(0..<16)),
            ("has a sync version", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncVersion), Set(0..<16)),
            ("has no sync identifier", NSCompoundPredicate(notPredicateWithSubpredicate: synced), Set(16..<20)),
            ("one import identifier", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncIdentifier, allowedValues: [identifiers[0]]), [0]),
            ("an import and an app identifier", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncIdentifier,
                                                                            allowedValues: [identifiers[10], "app-sync-12"]), [10, 12]),
            ("an identifier nobody has", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncIdentifier, allowedValues: ["nope"]), []),
            ("a number as identifier", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncIdentifier, allowedValues: [5]), []),
            ("identifier equal to", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncIdentifier, operatorType: .equalTo,
                                                                value: "app-sync-13"), [13]),
            ("version 1", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncVersion, allowedValues: [1]), Set(0..<10).union([13])),
            ("version true", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncVersion, allowedValues: [true]), Set(0..<10).union([13])),
            ("version 2.0", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncVersion, allowedValues: [2.0]), [10, 11, 14]),
            ("version 3 or 1.5", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncVersion, allowedValues: [3, 1.5]), [12]),
            ("version 1e16 as a Double", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncVersion, allowedValues: [1e16]), [15]),
            ("version 1e16 as an integer", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncVersion,
                                                                       allowedValues: [10_000_000_000_000_000]), []),
            ("version above 1", HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncVersion, operatorType: .greaterThan, value: 1), nil),
            ("synced and tagged", NSCompoundPredicate(andPredicateWithSubpredicates: [synced, tagged]), Set(0..<5)),
            ("version 2 or tagged", NSCompoundPredicate(orPredicateWithSubpredicates: [
                HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeySyncVersion, allowedValues: [2]), tagged]),
             Set(0..<5).union([10, 11, 14, 16, 17])),
        ]
    }

    /// What each predicate finds, as sample indices.
    static func results(_ store: HKHealthStore, _ samples: [HKQuantitySample], _ identifiers: [String]) async throws -> [String: Set<Int>] {
        let index = Dictionary(uniqueKeysWithValues: samples.enumerated().map { ($1.uuid, $0) })
        var results: [String: Set<Int>] = [:]
        for (name, predicate, _) in predicates(identifiers) {
            let found = try await store.runSampleQuery(type, predicate: predicate)
            results[name] = Set(found.compactMap { index[$0.uuid] })
            #expect(found.count == results[name]?.count, "\(name)")
        }
        return results
    }

    static func expectFindings(_ results: [String: Set<Int>], _ identifiers: [String]) {
        for (name, _, expected) in predicates(identifiers) {
            guard let expected else { continue }
            #expect(results[name] == expected, "\(name)")
        }
    }

    /// Every sample reads back with the metadata it was saved with, value for value.
    static func expectSameMetadata(_ store: HKHealthStore, _ samples: [HKQuantitySample]) async throws {
        let stored = try await store.runSampleQuery(type)
        #expect(stored.count == samples.count)
        let byUUID = Dictionary(uniqueKeysWithValues: stored.map { ($0.uuid, $0) })
        for sample in samples {
            let read = try #require(byUUID[sample.uuid])
            #expect(try MetadataCodec.values(read.metadata ?? [:]) == (try MetadataCodec.values(sample.metadata ?? [:])))
        }
    }

    static func syncIndexRows(_ folder: TemporaryFolder, cipher: RecordCipher) async throws -> Int {
        try await ValueBlockTests.integer(folder, "SELECT count(*) FROM metadata_index WHERE key_id IN (SELECT id FROM metadata_key WHERE hash IN (?, ?))",
                                          [cipher.indexHash("mk", HKMetadataKeySyncIdentifier), cipher.indexHash("mk", HKMetadataKeySyncVersion)])
    }

    @Test("A new store indexes no sync identifier a row's columns answer, and every metadata predicate finds what it must")
    func newStore() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let (samples, identifiers) = Self.samples(seed: 1)
        try await Self.save(samples, into: store)
        let results = try await Self.results(store, samples, identifiers)
        Self.expectFindings(results, identifiers)
        try await Self.expectSameMetadata(store, samples)
        let database = try HealthDatabase.open(location: .file(folder.database), key: .keyFile(folder.keyFile), tombstoneRetention: 86_400)
        // Only the version 1e16 (a Double whose index form is not its whole number's) is indexed.
        #expect(try await Self.syncIndexRows(folder, cipher: database.cipher) == 1)
        // The tags and the motion context stay indexed.
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM metadata_index") == 1 + 8)
        // Metadata is sealed in binary (issue 36): an import's sync identifier as its 32 digest bytes, an app's as its
        // text, both keys and versions as a byte or two. Format, flags, value, metadata, quantity details (4 + 20 bytes:
        // 60 count/min), nonce and tag.
        let sizes = try await database.writer.read { db in
            try Int.fetchAll(db, sql: "SELECT length(sealed) FROM sample ORDER BY start")
        }
        #expect(sizes[5] == 2 + 8 + (1 + 34 + 3) + 24 + 28, "\(sizes)")
        #expect(sizes[12] == 2 + 8 + (1 + 14 + 3) + 24 + 28, "\(sizes)")
    }

    @Test("A store written the old way (sync metadata indexed, records sealed as JSON) migrates: same findings, same metadata")
    func oldStoreMigrates() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let (samples, identifiers) = Self.samples(seed: 2)
        try await Self.save(samples, into: store)
        let database = try HealthDatabase.open(location: .file(folder.database), key: .keyFile(folder.keyFile), tombstoneRetention: 86_400)
        let cipher = database.cipher
        // Make it what the save wrote before v18: every metadata entry indexed, metadata sealed as JSON.
        try await database.writer.write { db in
            var index = try MetadataIndexWriter(db)
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, uuid, (SELECT identifier FROM sample_type t WHERE t.id = type), kind, start, "end", sealed FROM sample
                """)
            for row in rows {
                guard let kind = SampleKind(rawValue: row[3]) else { throw HealthStoreError(.corruptDatabase, "kind") }
                let context = RecordContext(uuid: row[1] as Data, type: row[2], kind: kind, start: row[4], end: row[5])
                var payload = try SamplePayload(decoding: cipher.open(row[6] as Data, context: context.bytes))
                payload.compactMetadata = nil
                try db.execute(sql: "UPDATE sample SET sealed = ? WHERE id = ?",
                               arguments: [try cipher.seal(payload.encodedBytes(), context: context.bytes), row[0] as Int64])
                try db.execute(sql: "DELETE FROM metadata_index WHERE sample_id = ?", arguments: [row[0] as Int64])
                guard let metadata = payload.metadata else { continue }
                for entry in SamplePreparer.metadataIndex(try MetadataCodec.decode(metadata), cipher: cipher) {
                    try index.write(entry, rowID: row[0])
                }
            }
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v18-sync-column-index'")
        }
        try (database.writer as? DatabasePool)?.close()
        #expect(try await Self.syncIndexRows(folder, cipher: cipher) == 32)
        #expect(try await ValueBlockTests.integer(folder, """
            SELECT min(length(sealed)) FROM sample WHERE source_id IN (SELECT id FROM source WHERE bundle_identifier = 'org.example.import')
            """) > 150)

        // Before the migration: the old index rows and the columns both answer, the same way.
        let before = try await Self.results(store, samples, identifiers)
        Self.expectFindings(before, identifiers)
        try await Self.expectSameMetadata(store, samples)

        // Opened again: migrated, the rows the columns answer are gone, nothing else changed.
        let reopened = TestStores.owner(folder)
        try await Self.expectSameMetadata(reopened, samples)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM grdb_migrations WHERE identifier = 'v18-sync-column-index'") == 1)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM store_info WHERE key = 'sync_index_pending'") == 0)
        #expect(try await Self.syncIndexRows(folder, cipher: cipher) == 1)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM metadata_index") == 1 + 8)
        let after = try await Self.results(reopened, samples, identifiers)
        #expect(after == before)

        // Saving the same samples again stores nothing; newer versions replace, as before.
        let counts = try await reopened.save(Array(samples[0..<12]), recordedAs: Array(repeating: Self.importRevision, count: 12))
        #expect(counts.storedCount == 0 && counts.alreadyStoredCount == 12)
        #expect(try await reopened.runSampleQuery(Self.type).count == 20)
    }

    @Test("Compact sync metadata expands to the exact JSON the sample was saved with; other metadata is not compacted")
    func compactRoundTrip() throws {
        var random = SplitMix64(seed: 36)
        let pieces = ["a", "/", "\"", "\\", "é", "😀", "\u{1}", "\n", "apple-health-export:", " "]
        var compacted = 0
        for round in 0..<2_000 {
            let digest = (0..<32).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            var identifier = MetadataCodec.importSyncPrefix + digest.map { String(format: "%02x", $0) }.joined()
            var shapeless = false
            switch round % 10 {
            case 0: identifier = identifier.uppercased(); shapeless = true
            case 1: identifier.removeLast(); shapeless = true
            case 2: identifier = "apple-health-export:ecg:" + identifier.suffix(64); shapeless = true
            default: break
            }
            var values: [String: MetadataCodec.Value] = [HKMetadataKeySyncIdentifier: .string(identifier)]
            if round % 10 == 3 {
                values[HKMetadataKeySyncVersion] = .bool(true)
                shapeless = true
            } else {
                values[HKMetadataKeySyncVersion] = .integer(Int64(bitPattern: random.next()) >> random.below(64))
            }
            for index in 0..<random.below(4) {
                let key = ["tag", "HKMetadataKeyHeartRateMotionContext", "Zeta", "a\(index)"][random.below(4)]
                values[key] = [.string((0..<random.below(6)).map { _ in pieces[random.below(pieces.count)] }.joined()),
                               .integer(Int64(random.below(1_000))), .double(2.5), .bool(false),
                               .date(Date(timeIntervalSinceReferenceDate: Double(random.below(1_000_000)))),
                               .quantity(3.25, unit: "cm")][random.below(6)]
            }
            let json = try MetadataCodec.encode(values)
            guard let compact = MetadataCodec.compactSync(values) else {
                #expect(shapeless, "\(values)")
                continue
            }
            #expect(!shapeless, "\(values)")
            compacted += 1
            #expect(try MetadataCodec.expandCompactSync(Data(compact)) == json)
            var payload = SamplePayload(double: 1.5, metadata: json, device: Data("{}".utf8), extra: Data([1, 2]))
            payload.compactMetadata = compact
            let decoded = try SamplePayload(decoding: payload.encoded())
            #expect(decoded.metadata == json && decoded.device == Data("{}".utf8) && decoded.extra == Data([1, 2]))
            #expect(try SamplePayload.primaryBits(of: payload.encoded()) == 1.5.bitPattern)
            if values.count == 2 { #expect(payload.encoded().count < json.count) }
        }
        #expect(compacted > 1_000)
        // Truncated compact sections are refused, never read past their end.
        #expect(throws: HealthStoreError.self) { _ = try MetadataCodec.expandCompactSync(Data(repeating: 0, count: 39)) }
    }
}
