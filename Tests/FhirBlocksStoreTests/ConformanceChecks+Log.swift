import FhirBlocks
import FhirBlocksStore
import Testing

extension ConformanceChecks {
    // MARK: Audit log

    static func auditRoundTrip(_ session: StoreSession) async throws {
        let store = session.store
        let entries = (0..<3).map { Fixtures.auditEntry(agent: "agent-\($0)", at: Fixtures.t0.adding(seconds: Int64($0))) }
        var change = TrustChange()
        change.auditEntries = entries.map { PendingAuditEntry(entry: $0) }
        #expect(try await store.commit(change) == [0, 1, 2])
        var more = TrustChange()
        more.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(.permissionRevoke, agent: "agent-3", reason: "invalid_signature"))]
        #expect(try await store.commit(more) == [3])
        #expect(try await store.auditCount() == 4)

        let records = try await store.auditRecords(from: 0, limit: 100)
        #expect(records.map(\.index) == [0, 1, 2, 3])
        for (record, entry) in zip(records, entries) {
            #expect(record.canonicalBytes == entry.canonicalBytes)
            #expect(record.leafHash == entry.leafHash)
            #expect(record.isSelfConsistent)
            #expect(try AuditEntry(canonicalBytes: record.canonicalBytes) == entry)
        }
        #expect(try await store.auditRecords(from: 1, limit: 2).map(\.index) == [1, 2])
        #expect(try await store.auditRecords(from: 3, limit: 10).map(\.index) == [3])
        #expect(try await store.auditRecords(from: 4, limit: 10).isEmpty)
        #expect(try await store.auditRecords(from: 0, limit: 0).isEmpty)
    }

    /// `commit(_:completion:)`, as the audit group commit uses it.
    static func auditCommitWithCompletion(_ session: StoreSession) async throws {
        let store = session.store
        func commit(_ change: TrustChange) async -> Result<[Int], TrustStoreError> {
            await withCheckedContinuation { continuation in
                store.commit(change) { result in continuation.resume(returning: result) }
            }
        }
        var first = TrustChange()
        first.auditEntries = (0..<3).map { PendingAuditEntry(entry: Fixtures.auditEntry(agent: "agent-\($0)")) }
        #expect(try await commit(first).get() == [0, 1, 2])
        var second = TrustChange()
        second.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "agent-3"))]
        #expect(try await commit(second).get() == [3])
        // A refused change (a csiGuid registered twice) completes with the refusal; its entry is not stored.
        let wallet = try Fixtures.wallet()
        var registration = TrustChange()
        registration.registrations = [wallet]
        #expect(try await commit(registration).get() == [])
        var duplicate = TrustChange()
        duplicate.registrations = [try Fixtures.wallet(wallet.csiGuid, key: 2)]
        duplicate.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "dup"))]
        #expect(await commit(duplicate) == .failure(.alreadyRegistered(wallet.csiGuid.rawValue)))
        // The store goes on: the next commit, either way, takes the next index.
        var third = TrustChange()
        third.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "agent-4"))]
        #expect(try await commit(third).get() == [4])
        var fourth = TrustChange()
        fourth.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "agent-5"))]
        #expect(try await store.commit(fourth) == [5])
        let records = try await store.auditRecords(from: 0, limit: 10)
        #expect(records.map(\.index) == [0, 1, 2, 3, 4, 5])
        #expect(records.map { try? AuditEntry(canonicalBytes: $0.canonicalBytes).agent } == ["agent-0", "agent-1", "agent-2", "agent-3", "agent-4", "agent-5"])
    }

    static func auditBySignatureDigest(_ session: StoreSession) async throws {
        let store = session.store
        let digest = String(repeating: "a1", count: 32)
        var first = TrustChange()
        first.auditEntries = [
            PendingAuditEntry(entry: Fixtures.auditEntry(agent: "one"), signatureDigest: digest),
            PendingAuditEntry(entry: Fixtures.auditEntry(agent: "two")),
            PendingAuditEntry(entry: Fixtures.auditEntry(agent: "three"), signatureDigest: String(repeating: "b2", count: 32)),
        ]
        try await store.commit(first)
        var second = TrustChange()
        second.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "four"), signatureDigest: digest)]
        try await store.commit(second)
        let found = try await store.auditRecords(signatureDigest: digest)
        #expect(found.map(\.index) == [0, 3])
        #expect(found.first?.canonicalBytes == Fixtures.auditEntry(agent: "one").canonicalBytes)
        #expect(try await store.auditRecords(signatureDigest: String(repeating: "b2", count: 32)).map(\.index) == [2])
        #expect(try await store.auditRecords(signatureDigest: String(repeating: "c3", count: 32)).isEmpty)
    }

    static func auditConcurrentCommits(_ session: StoreSession) async throws {
        let store = session.store
        let results = try await withThrowingTaskGroup(of: (Int, [Int]).self) { group in
            for writer in 0..<8 {
                group.addTask {
                    var change = TrustChange()
                    change.auditEntries = (0..<5).map { PendingAuditEntry(entry: Fixtures.auditEntry(agent: "writer-\(writer)-entry-\($0)")) }
                    return (writer, try await store.commit(change))
                }
            }
            var results: [Int: [Int]] = [:]
            for try await (writer, indexes) in group { results[writer] = indexes }
            return results
        }
        #expect(results.count == 8)
        // Each commit got five consecutive indexes; together they are 0..<40 exactly once.
        for (writer, indexes) in results {
            #expect(indexes.count == 5, "writer \(writer)")
            if let first = indexes.first { #expect(indexes == Array(first..<(first + 5)), "writer \(writer)") }
        }
        #expect(results.values.flatMap { $0 }.sorted() == Array(0..<40))
        #expect(try await store.auditCount() == 40)
        let records = try await store.auditRecords(from: 0, limit: 100)
        #expect(records.map(\.index) == Array(0..<40))
        // Each index holds the entry its commit was told it holds.
        for (writer, indexes) in results {
            for (offset, index) in indexes.enumerated() where index < records.count {
                #expect(records[index].canonicalBytes == Fixtures.auditEntry(agent: "writer-\(writer)-entry-\(offset)").canonicalBytes)
            }
        }
    }

    /// More entries in one change than one insert statement carries (the writers insert a
    /// group in chunks of rows): every entry lands at its index, with its bytes and digest.
    static func auditLargeGroup(_ session: StoreSession) async throws {
        let store = session.store
        var opening = TrustChange()
        opening.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "opening"))]
        #expect(try await store.commit(opening) == [0])
        // Every third entry signed, each with its own 64-digit digest.
        let digest = { (index: Int) -> String? in
            guard index.isMultiple(of: 3) else { return nil }
            let hex = String(index, radix: 16)
            return String(repeating: String(repeating: "0", count: 4 - hex.count) + hex, count: 16)
        }
        let entries = (0..<150).map { index in
            PendingAuditEntry(entry: Fixtures.auditEntry(agent: "group-\(index)", at: Fixtures.t0.adding(seconds: Int64(index))),
                              signatureDigest: digest(index))
        }
        var change = TrustChange()
        change.auditEntries = entries
        #expect(try await store.commit(change) == Array(1...150))
        let records = try await store.auditRecords(from: 0, limit: 200)
        #expect(records.map(\.index) == Array(0...150))
        for (record, pending) in zip(records.dropFirst(), entries) {
            #expect(record.canonicalBytes == pending.canonicalBytes && record.leafHash == pending.leafHash && record.isSelfConsistent)
        }
        for index in [0, 33, 99, 147] {
            let found = try await store.auditRecords(signatureDigest: try #require(digest(index)))
            #expect(found.map(\.index) == [index + 1])
        }
        #expect(try await store.auditRecords(signatureDigest: String(repeating: "01", count: 32)).isEmpty)
    }

    static func checkpointsOrdered(_ session: StoreSession) async throws {
        let store = session.store
        for size in [5, 1, 3] {
            var change = TrustChange()
            change.checkpoints = [StoredCheckpoint(treeSize: size, note: "note for \(size)\n— sig\n")]
            try await store.commit(change)
        }
        var duplicate = TrustChange()
        duplicate.checkpoints = [StoredCheckpoint(treeSize: 3, note: "another note")]
        try await store.commit(duplicate)
        let read = try await store.checkpoints()
        #expect(try await store.latestCheckpoint() == read.last)
        #expect(try await store.latestCheckpoint() == StoredCheckpoint(treeSize: 5, note: "note for 5\n— sig\n"))
        #expect(read.map(\.treeSize) == [1, 3, 5])
        #expect(read.map(\.note) == ["note for 1\n— sig\n", "note for 3\n— sig\n", "note for 5\n— sig\n"])
    }
}
