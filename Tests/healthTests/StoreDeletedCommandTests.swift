import Foundation
import Testing

/// `health store delete` keeps what it deletes in Recently deleted; `health store deleted` lists and restores it.
@Suite("health store deleted: list and restore")
struct StoreDeletedCommandTests {
    /// The samples of a type, as `health store query --json` prints them.
    static func query(_ runner: CommandRunner, _ type: String) async throws -> [[String: Any]] {
        let result = try await runner.run(["store", "query", "--type", type, "--json"])
        #expect(result.status == 0, "\(result.error)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
    }

    @Test("Delete by UUID, list, restore: the sample is back with a new UUID, its value, dates and metadata")
    func deleteAndRestore() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        #expect(try await runner.run(["store", "add", "--type", "heartRate", "--value", "64", "--unit", "count/min",
                                      "--start", "2026-11-20T08:00:00Z", "--metadata", "HKWasUserEntered=true"]).status == 0)
        let original = try #require(try await Self.query(runner, "heartRate").first)
        let uuid = try #require(original["uuid"] as? String)

        let empty = try await runner.run(["store", "deleted"])
        #expect(empty.status == 0 && empty.output.contains("Recently deleted is empty"))

        let deleted = try await runner.run(["store", "delete", "--uuid", uuid])
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(deleted.output.contains("Deleted 1 sample."))
        #expect(deleted.output.contains("Moved to Recently deleted, where it is kept for 30 days."))
        #expect(deleted.output.contains("To restore it: health store deleted --restore "))
        #expect(try await Self.query(runner, "heartRate").isEmpty)

        let listed = try await runner.run(["store", "deleted", "--json"])
        #expect(listed.status == 0, "\(listed.error)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        let item = try #require(items.first)
        #expect(items.count == 1 && item["uuid"] as? String == uuid && item["value"] as? Double == 64)
        #expect(item["deletedAt"] is String && item["expiresAt"] is String)
        let id = try #require(item["id"] as? Int)

        let table = try await runner.run(["store", "deleted"])
        let header = try #require(table.output.split(separator: "\n").first)
        #expect(header.hasPrefix("ID") && header.contains("Type") && header.contains("Value") && header.contains("Deleted"))
        #expect(table.output.contains("Heart Rate") && table.output.contains("Restore with: health store deleted --restore ID"))

        let missing = try await runner.run(["store", "deleted", "--restore", "\(id + 100)"])
        #expect(missing.status != 0 && missing.error.contains("Recently deleted has no item \(id + 100)"))

        let restored = try await runner.run(["store", "deleted", "--restore", "\(id)"])
        #expect(restored.status == 0, "\(restored.error)")
        #expect(restored.output.contains("Restored 1 sample (a new sample, with a new UUID):"))
        let back = try #require(try await Self.query(runner, "heartRate").first)
        #expect(back["uuid"] as? String != uuid)
        #expect(back["value"] as? Double == 64)
        #expect(back["start"] as? String == original["start"] as? String && back["end"] as? String == original["end"] as? String)
        #expect(back["source"] as? String == original["source"] as? String)
        #expect((back["metadata"] as? [String: Any])?["HKWasUserEntered"] as? Bool == true)
        #expect(try await runner.run(["store", "deleted"]).output.contains("Recently deleted is empty"))
    }

    @Test("A delete by type and dates names the IDs to restore; restoring them all brings every sample back")
    func deleteRange() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        for (hour, value) in [(8, 100), (9, 200), (10, 300)] {
            #expect(try await runner.run(["store", "add", "--type", "stepCount", "--value", "\(value)",
                                          "--start", "2026-11-20T\(hour):00:00Z", "--end", "2026-11-20T\(hour):30:00Z"]).status == 0)
        }
        let deleted = try await runner.run(["store", "delete", "--type", "stepCount", "--from", "2026-11-20", "--to", "2026-11-21"])
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(deleted.output.contains("Moved to Recently deleted, where they are kept for 30 days."))
        let line = try #require(deleted.output.split(separator: "\n").first { $0.hasPrefix("To restore them: health store deleted --restore ") })
        let ids = line.split(separator: " ").suffix(3).map(String.init)
        #expect(ids.allSatisfy { Int($0) != nil })
        #expect(try await Self.query(runner, "stepCount").isEmpty)
        // An ID given twice is restored once, and each ID is paired with its own new sample.
        let restored = try await runner.run(["store", "deleted", "--json", "--restore", ids[0], ids[0]] + ids.dropFirst())
        #expect(restored.status == 0, "\(restored.error)")
        let pairs = try #require(try JSONSerialization.jsonObject(with: Data(restored.output.utf8)) as? [[String: Any]])
        #expect(pairs.compactMap { $0["id"] as? Int }.map(String.init) == ids)
        let samples = try await Self.query(runner, "stepCount")
        #expect(samples.compactMap { $0["value"] as? Double }.sorted() == [100, 200, 300])
        #expect(Set(pairs.compactMap { $0["uuid"] as? String }) == Set(samples.compactMap { $0["uuid"] as? String }))
    }
}
