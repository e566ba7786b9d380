import Foundation
@testable import OpenHealthKit
import Testing
import TestSupport

@Suite("Shared links: kept sealed, owner-only")
struct SharedLinkStoreTests {
    @Test("Save, replace, find by id, list, remove; still there after reopening")
    func roundTrip() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        #expect(try await owner.sharedLinks().isEmpty)
        #expect(try await owner.sharedLink(id: "a") == nil)
        try await owner.saveSharedLink(HKSharedLink(id: "b", state: Data("one".utf8)))
        try await owner.saveSharedLink(HKSharedLink(id: "a", state: Data()))
        try await owner.saveSharedLink(HKSharedLink(id: "b", state: Data("two".utf8)))
        #expect(try await owner.sharedLinks() == [HKSharedLink(id: "a", state: Data()), HKSharedLink(id: "b", state: Data("two".utf8))])
        #expect(try await owner.sharedLink(id: "b")?.state == Data("two".utf8))
        #expect(try await owner.removeSharedLink(id: "b"))
        #expect(try await !owner.removeSharedLink(id: "b"))
        #expect(try await TestStores.owner(folder).sharedLinks().map(\.id) == ["a"])
    }

    @Test("Nothing of a link is in the database file in the clear, and a row moved to another id fails to open")
    func sealed() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        try await owner.saveSharedLink(HKSharedLink(id: "link-id-99812", state: Data("key-material-4471".utf8)))
        try await owner.saveSharedLink(HKSharedLink(id: "other", state: Data("x".utf8)))
        var text = Data()
        for suffix in ["", "-wal"] {
            text.append((try? Data(contentsOf: URL(fileURLWithPath: folder.database.path + suffix))) ?? Data())
        }
        for secret in ["link-id-99812", "key-material-4471"] {
            #expect(text.range(of: Data(secret.utf8)) == nil, "\(secret) is stored in the clear")
        }
        let database = try await owner.engine.databaseAsync()
        try await database.writeAsync { db in
            // Both rows get the first row's sealed blob: the other row now holds a blob bound to another id.
            try db.execute(sql: "UPDATE shared_link SET sealed = (SELECT sealed FROM shared_link ORDER BY id_hash LIMIT 1)")
        }
        await #expect(throws: HealthStoreError.self) { _ = try await owner.sharedLinks() }
        var failed = 0
        for id in ["link-id-99812", "other"] {
            do {
                _ = try await owner.sharedLink(id: id)
            } catch is HealthStoreError {
                failed += 1
            }
        }
        #expect(failed == 1, "the moved row fails to open; the first row still does")
    }

    @Test("An app can neither read nor write shared links")
    func ownerOnly() async throws {
        let folder = TemporaryFolder()
        try await TestStores.owner(folder).saveSharedLink(HKSharedLink(id: "a", state: Data()))
        let app = TestStores.app(folder, bundle: "com.example.reader")
        await #expect(throws: HKError.self) { _ = try await app.sharedLinks() }
        await #expect(throws: HKError.self) { _ = try await app.sharedLink(id: "a") }
        await #expect(throws: HKError.self) { try await app.saveSharedLink(HKSharedLink(id: "x", state: Data())) }
        await #expect(throws: HKError.self) { try await app.removeSharedLink(id: "a") }
    }
}
