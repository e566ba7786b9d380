import FhirBlocks
import FhirBlocksPostgres
import FhirBlocksStore
import Foundation
import Logging
import PostgresNIO
import Testing

/// PostgreSQL-specific behaviour: connection failures, schema bookkeeping, unreadable rows.
/// The shared behaviour is in `FhirBlocksStoreTests`.
@Suite("PostgresTrustStore")
struct PostgresTrustStoreTests {
    static var adminURL: String? {
        guard let text = ProcessInfo.processInfo.environment["OPENHEALTHKIT_POSTGRES_URL"], !text.isEmpty else { return nil }
        return text
    }

    @Test func malformedURLIsUnavailableWithoutThePassword() {
        do {
            _ = try PostgresTrustStore(url: "postgres://u:hunter2@host:notaport/db")
            Issue.record("expected an error")
        } catch {
            #expect(error == .unavailable("invalid PostgreSQL URL: the URL's port is malformed"))
            #expect(!error.description.contains("hunter2"))
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func unreachableServerIsUnavailableQuickly() async throws {
        // Nothing listens on port 1 of the loopback address: connections are refused at once and
        // the pool keeps retrying; the store gives up after its connection timeout.
        let store = PostgresTrustStore(url: PostgresURL(host: "127.0.0.1", port: 1, username: "nobody", database: "none", sslMode: .disable),
                                       connectionTimeout: .seconds(2), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        // The reasons below prove the connection timeout (or the refusal) ended the wait; the
        // suite's time limit catches a hang. How long it took is not asserted.
        await #expect(throws: TrustStoreError.self) { try await store.migrate() }
        do {
            _ = try await store.auditCount()
            Issue.record("expected an error")
        } catch {
            guard case .unavailable(let reason) = error else {
                Issue.record("expected .unavailable, got \(error)")
                return
            }
            #expect(reason == "no connection within 2 s" || reason == "cannot connect", "\(reason)")
        }
        #expect(await store.insertIfAbsentFails())
        await store.close()
    }

    @Test(.enabled(if: adminURL != nil, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func schemaVersionAndConcurrentMigrations() async throws {
        try await withDatabase { url in
            let stores = (0..<4).map { _ in PostgresTrustStore(url: url, connectionTimeout: .seconds(300), maximumConnections: 2) }
            #expect(try await stores[0].schemaVersion() == 0)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for store in stores { group.addTask { try await store.migrate() } }
                try await group.waitForAll()
            }
            for store in stores {
                // v1, v2 (the issued-GUID expiry index), v3 (SMART App Launch), v4 (the ledger version), v5 (the search index),
                // v6 (the search index's hull_single), v7 (the compartment in byte order, for $everything),
                // v8 (the search index's hull_span), v9 (who wrote each resource, for health cards),
                // v10 (SMART Health Links hosted for wallets), v11 (Bulk Data export jobs and files), v12 (export Groups),
                // v13 (SMART Backend Services clients), v14 (the checkpoints a witness cosigned)
                #expect(try await store.schemaVersion() == 14)
                await store.close()
            }
        }
    }

    @Test(.enabled(if: adminURL != nil, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"), .timeLimit(.minutes(10)))
    func closedStoreIsUnavailable() async throws {
        try await withDatabase { url in
            // Connecting may be slow on a loaded machine, so the timeout is generous, and longer
            // than the test's time limit: a closed store that waited for a connection would fail.
            let store = PostgresTrustStore(url: url, connectionTimeout: .seconds(300))
            try await store.migrate()
            await store.close()
            // A closed store answers at once with an error (the time limit catches a wait).
            await #expect(throws: TrustStoreError.self) { try await store.auditCount() }
        }
    }

    @Test(.enabled(if: adminURL != nil, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func unreadableRowsAreCorruptNamingTheTable() async throws {
        try await withDatabase { url in
            let store = PostgresTrustStore(url: url, connectionTimeout: .seconds(300))
            try await store.migrate()
            let csi = try #require(CsiGuid("7c5b8363-504b-4f83-9d01-caa4e28a156e"))
            try await execute(url, """
                INSERT INTO registration (csi, spki, device_id, application_class, claims, registered_at)
                VALUES ('\(csi.rawValue)', '\\x0102', 'd', 'org.fhirblocks.csa', '[]', 0)
                """)
            try await execute(url, "INSERT INTO permission VALUES ('p', 'not-a-csi', 'x', 'y', 'patient|*|r|V|*', 0, 1, NULL, 0, NULL)")
            try await execute(url, "INSERT INTO audit_entry VALUES (0, '\\x00', '\\x00', NULL)")
            await #expect(throws: TrustStoreError.corrupt("registration spki")) { try await store.registration(csi) }
            await #expect(throws: TrustStoreError.corrupt("permission")) { try await store.permissions() }
            await #expect(throws: TrustStoreError.corrupt("audit_entry")) { try await store.auditRecords(from: 0, limit: 1) }
            await store.close()
        }
    }

    @Test(.enabled(if: adminURL != nil, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func duplicatePermissionIsAConflictAndRollsBack() async throws {
        try await withDatabase { url in
            let store = PostgresTrustStore(url: url, connectionTimeout: .seconds(300))
            try await store.migrate()
            let patient = try #require(CsiGuid("7c5b8363-504b-4f83-9d01-caa4e28a156e"))
            let permission = Permission(id: PermissionID("perm-1"), patient: patient, grantor: patient, grantee: patient, scope: .owner,
                                        window: .always, parent: nil, grantedAt: Timestamp(millisecondsSince1970: 0))
            var change = TrustChange()
            change.permissions = [permission]
            try await store.commit(change)
            change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .permissionGrant, recorded: Timestamp(millisecondsSince1970: 0), agent: "a"))]
            await #expect(throws: TrustStoreError.conflict("permission perm-1 exists")) { try await store.commit(change) }
            #expect(try await store.auditCount() == 0)
            await store.close()
        }
    }

    @Test(.enabled(if: adminURL != nil, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func expiredNoncesAndCodesArePurgedAndHistoryKept() async throws {
        try await withDatabase { url in
            let store = PostgresTrustStore(url: url, connectionTimeout: .seconds(300))
            try await store.migrate()
            let t0 = Timestamp(millisecondsSince1970: 1_750_000_000_000)
            let csi = try #require(CsiGuid("7c5b8363-504b-4f83-9d01-caa4e28a156e"))
            let scope = GrantedScope(grants: [.owner], scopes: [], dropped: [])
            // The first call purges (nothing yet); the next purge is due a minute later.
            #expect(try await store.insertIfAbsent(NonceKey(namespace: .smoacNonce, owner: "o", value: "a"), expiresAt: t0.adding(seconds: 5), now: t0))
            try await store.put(AuthorizationCode(code: "c-old", client: csi, patient: csi, scope: scope, permissionIDs: [], issuedAt: t0,
                                                  expiresAt: t0.adding(seconds: 5)))
            try await store.put(AuthorizationCode(code: "c-live", client: csi, patient: csi, scope: scope, permissionIDs: [], issuedAt: t0,
                                                  expiresAt: t0.adding(seconds: 600)))
            #expect(try await store.insertIfAbsent(NonceKey(namespace: .smoacNonce, owner: "o", value: "b"), expiresAt: t0.adding(seconds: 600),
                                                   now: t0.adding(seconds: 30)))
            #expect(try await count(url, "nonce") == 2)
            #expect(try await store.insertIfAbsent(NonceKey(namespace: .smoacNonce, owner: "o", value: "c"), expiresAt: t0.adding(seconds: 600),
                                                   now: t0.adding(seconds: 61)))
            #expect(try await count(url, "nonce") == 2)
            #expect(try await count(url, "auth_code") == 1)
            #expect(try await store.take("c-live")?.code == "c-live")

            var change = TrustChange()
            for version in 1...3 {
                change.resources = [FHIRResourceWrite(record: FHIRResourceRecord(type: "Patient", id: "p", patient: csi, versionID: version,
                                                                                 lastUpdated: t0, json: Array("v\(version)".utf8)))]
                try await store.commit(change)
            }
            #expect(try await count(url, "fhir_resource_history") == 3)
            #expect(try await count(url, "fhir_resource") == 1)
            await store.close()
        }
    }

    // MARK: Helpers

    /// A fresh database for one test, dropped afterwards.
    private func withDatabase(_ body: (PostgresURL) async throws -> Void) async throws {
        let admin = try PostgresURL(try #require(Self.adminURL))
        let name = "p_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await PostgresDatabaseAdmin.createDatabase(name, adminURL: admin, timeout: .seconds(120))
        let outcome: Result<Void, any Error>
        do {
            try await body(admin.with(database: name))
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try? await PostgresDatabaseAdmin.dropDatabase(name, adminURL: admin, timeout: .seconds(120))
        try outcome.get()
    }

    /// Runs one statement directly (to plant rows the store would never write).
    private func execute(_ url: PostgresURL, _ sql: String) async throws {
        _ = try await rows(url, sql)
    }

    /// The number of rows of a table, read directly.
    private func count(_ url: PostgresURL, _ table: String) async throws -> Int {
        let result = try await rows(url, "SELECT COUNT(*) FROM \(table)")
        return try Int(#require(result.first).decode(Int64.self))
    }

    private func rows(_ url: PostgresURL, _ sql: String) async throws -> [PostgresRow] {
        let client = PostgresClient(configuration: PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database, tls: .disable))
        return try await withThrowingTaskGroup(of: [PostgresRow]?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            let rows = try await client.query(PostgresQuery(unsafeSQL: sql)).collect()
            group.cancelAll()
            return rows
        }
    }
}

extension PostgresTrustStore {
    /// Whether `insertIfAbsent` fails (with a `NonceStoreError`).
    fileprivate func insertIfAbsentFails() async -> Bool {
        do {
            _ = try await insertIfAbsent(NonceKey(namespace: .smoacNonce, owner: "o", value: "v"),
                                         expiresAt: Timestamp(millisecondsSince1970: 1), now: Timestamp(millisecondsSince1970: 0))
            return false
        } catch {
            return true
        }
    }
}
