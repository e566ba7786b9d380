import FhirBlocks
import FhirBlocksStore
import Testing

/// The order of the reads that return every row (``TrustSQL``'s reads, one statement for both
/// databases): the same on SQLite and PostgreSQL, whatever the database's collation.
extension ConformanceChecks {
    /// Registrations oldest first, then by csiGuid in byte order; permissions by grant time,
    /// then by id in byte order (`B` before `a`, which a locale's collation puts the other way).
    static func listsInDefinedOrder(_ session: StoreSession) async throws {
        let store = session.store
        let late = try Fixtures.wallet(try #require(CsiGuid("00000000-0000-4000-8000-000000000000")), at: Fixtures.t0.adding(seconds: 2))
        let high = try Fixtures.app(try #require(CsiGuid("ffffffff-0000-4000-8000-000000000000")))
        let low = try Fixtures.app(try #require(CsiGuid("11111111-0000-4000-8000-000000000000")), key: 2)
        var registrations = TrustChange()
        registrations.registrations = [late, high, low]
        try await store.commit(registrations)
        #expect(try await store.registrations().map(\.csiGuid) == [low.csiGuid, high.csiGuid, late.csiGuid])

        func permission(_ id: String, at time: Timestamp) -> Permission {
            Permission(id: PermissionID(id), patient: late.csiGuid, grantor: late.csiGuid, grantee: low.csiGuid, scope: .owner,
                       window: .always, parent: nil, grantedAt: time)
        }
        var permissions = TrustChange()
        permissions.permissions = [permission("b-later", at: Fixtures.t0.adding(seconds: 1)), permission("a", at: Fixtures.t0),
                                   permission("B", at: Fixtures.t0)]
        try await store.commit(permissions)
        #expect(try await store.permissions().map(\.id.rawValue) == ["B", "a", "b-later"])
    }
}
