import GRDB
import Testing

@testable import OpenHealthKit

/// A store a newer OpenHealthKit wrote (a migration this build does not know) is refused when
/// opened, instead of failing later on a record in a form this build cannot read.
@Suite("A store written by a newer OpenHealthKit")
struct NewerStoreTests {
    @Test("A new store carries the v21-compact-formats marker; one with a migration this build does not know is refused as unsupportedSchema")
    func newerStoreIsRefused() async throws {
        let folder = TemporaryFolder()
        try await TestStores.owner(folder).save(ValueBlockTests.heartRates(10, seed: 21))
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM grdb_migrations WHERE identifier = 'v21-compact-formats'") == 1)
        // It opens again as it is.
        #expect(throws: Never.self) { _ = try TestStores.owner(folder).engine.database() }

        try await ValueBlockTests.edit(folder) { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-a-newer-build')")
        }
        #expect {
            _ = try TestStores.owner(folder).engine.database()
        } throws: { error in
            (error as? HealthStoreError)?.kind == .unsupportedSchema && "\(error)".contains("written by a newer OpenHealthKit")
        }
    }
}
