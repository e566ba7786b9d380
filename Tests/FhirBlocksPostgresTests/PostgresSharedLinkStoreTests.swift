import FhirBlocks
import FhirBlocksPostgres
import FhirBlocksStore
import Foundation
import Testing

/// The SMART Health Links' share of the PostgreSQL store (`LinkStore`): two stores on one
/// database (two servers' connection pools) share a link's wrong-passcode budget, and parallel
/// reservations through both never take more attempts than there were.
@Suite("PostgreSQL shared links")
struct PostgresSharedLinkStoreTests {
    @Test(.enabled(if: PostgresTrustStoreTests.adminURL != nil, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func twoStoresOnOneDatabaseShareTheAttemptBudget() async throws {
        try await PostgresSchemaTests.withDatabases(1) { stores in
            let first = stores[0]
            try await first.migrate()
            let second = PostgresTrustStore(url: first.url, connectionTimeout: .seconds(300), maximumConnections: 4)
            let owner = try #require(CsiGuid(UUID().uuidString.lowercased()))
            let now = Timestamp(secondsSince1970: 1_800_000_000)
            let link = StoredSharedLink(id: String(repeating: "A", count: 43), owner: owner, flags: "P", label: nil, expiresAt: nil, createdAt: now,
                                        updatedAt: now, passcodeHash: "scrypt$14$8$1$AAAA$AAAA", attemptsLeft: 8)
            try await first.createSharedLink(link, files: [StoredSharedLinkFile(contentType: "application/fhir+json", jwe: "a..b.c.d")])
            // One each, in turn: the count is the database's.
            #expect(try await first.reserveSharedLinkAttempt(id: link.id) == 7)
            #expect(try await second.reserveSharedLinkAttempt(id: link.id) == 6)
            try await second.returnSharedLinkAttempt(id: link.id)
            #expect(try await first.sharedLink(id: link.id)?.attemptsLeft == 7)
            // 20 at once through both: exactly the 7 left are taken.
            let taken = try await withThrowingTaskGroup(of: Int?.self) { group in
                for index in 0..<20 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await store.reserveSharedLinkAttempt(id: link.id) }
                }
                var all: [Int?] = []
                for try await left in group { all.append(left) }
                return all
            }
            #expect(taken.compactMap { $0 }.sorted() == Array(0..<7))
            #expect(try await second.sharedLink(id: link.id)?.attemptsLeft == 0)
            // Revocation by another owner changes nothing; by the owner, it sticks.
            #expect(try await second.revokeSharedLink(id: link.id, owner: try #require(CsiGuid(UUID().uuidString.lowercased())), at: now) == false)
            #expect(try await second.revokeSharedLink(id: link.id, owner: owner, at: now))
            #expect(try await first.sharedLink(id: link.id)?.revokedAt == now)
            await second.close()
        }
    }
}
