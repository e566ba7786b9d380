import FhirBlocksPostgres
import Foundation
import Testing
import TestSupport

/// `health audit verify --checkpoint-file`: the latest checkpoint verified is kept, and a server
/// that later answers with a log that does not extend it is refused. The other log is real: a
/// copy of the server's data folder (the same audit key) grown apart, served by a second
/// `health serve`, which answers with checkpoints validly signed by the same key. On SQLite and,
/// when `OPENHEALTHKIT_POSTGRES_URL` names a server, on PostgreSQL (whose database is copied too).
@Suite(.serialized) struct AuditCheckpointFileTests {
    static func register(_ runner: CommandRunner, _ url: String, _ name: String) async throws {
        let result = try await runner.run(["wallet", "register", "--server", url, "--identity", runner.folder.appendingPathComponent("\(name).json").path,
                                           "--first-name", name, "--birth-date", "1970-01-01"])
        #expect(result.status == 0, "\(result.error)")
    }

    /// A copy of the stopped server's PostgreSQL database (nil on SQLite, whose file is in the data folder).
    static func copy(_ database: String?) async throws -> String? {
        guard let database, let admin = ProcessInfo.processInfo.environment["OPENHEALTHKIT_POSTGRES_URL"],
              let template = try PostgresURL(database).database else { return nil }
        let name = "k_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        // The stopped server's sessions may still be closing ("being accessed by other users"): a few tries.
        for attempt in 1...5 {
            do {
                try await PostgresDatabaseAdmin.copyDatabase(name, from: template, adminURL: try PostgresURL(admin), timeout: .seconds(120))
                break
            } catch {
                if attempt == 5 { throw error }
                try await Task.sleep(for: .seconds(1))
            }
        }
        return try PostgresURL(database).with(database: name).text
    }

    @Test(arguments: ServeCommandTests.backends)
    func aRolledBackOrForkedLogIsRefused(backend: String) async throws {
        let runner = CommandRunner()
        let other = CommandRunner()
        defer {
            runner.remove()
            other.remove()
        }
        let kept = runner.folder.appendingPathComponent("kept.checkpoint").path
        func verify(_ url: String) async throws -> CommandRunner.Result {
            try await runner.run(["audit", "verify", "--server", url, "--checkpoint-file", kept])
        }

        let database = try await ServeCommandTests.database(for: backend)
        var otherDatabase: String?
        try await withTeardown({ await ServeCommandTests.drop(database); await ServeCommandTests.drop(otherDatabase) }) {
            var server = try await ServeCommandTests.Server.start(runner, database: database)
            try await Self.register(runner, server.url, "Ada")
            let first = try await verify(server.url)
            #expect(first.status == 0 && first.output.contains("intact"), "\(first.output)\(first.error)")
            let firstKept = try String(contentsOfFile: kept, encoding: .utf8)
            #expect(firstKept.split(separator: "\n").count == 4)
            server.process.terminate()
            server.process.waitUntilExit()

            // The fork point: the same data folder, audit key included, copied aside (and the database).
            try FileManager.default.copyItem(at: runner.folder.appendingPathComponent("data"), to: other.folder.appendingPathComponent("data"))
            otherDatabase = try await Self.copy(database)
            #expect((otherDatabase == nil) == (database == nil))

            // The log grows: the next run checks the consistency proof from the kept checkpoint.
            server = try await ServeCommandTests.Server.start(runner, database: database)
            try await Self.register(runner, server.url, "Grace")
            let second = try await verify(server.url)
            #expect(second.status == 0 && second.output.contains("intact"), "\(second.output)\(second.error)")
            #expect(try String(contentsOfFile: kept, encoding: .utf8) != firstKept)
            server.process.terminate()
            server.process.waitUntilExit()

            // The copy, served as it was at the fork point: smaller than the kept checkpoint.
            let copy = try await ServeCommandTests.Server.start(other, database: otherDatabase)
            defer { copy.process.terminate() }
            let rolledBack = try await verify(copy.url)
            #expect(rolledBack.status == 1 && rolledBack.output.contains("rolled back"), "\(rolledBack.output)\(rolledBack.error)")
            // Grown apart beyond the kept size: another history under the same key.
            for name in ["Hedy", "Joan", "Radia", "Frances"] { try await Self.register(other, copy.url, name) }
            let forked = try await verify(copy.url)
            #expect(forked.status == 1 && forked.output.contains("forked"), "\(forked.output)\(forked.error)")
            // A refused log leaves the kept checkpoint as it was.
            #expect(try String(contentsOfFile: kept, encoding: .utf8) != firstKept)
            let unreadable = runner.folder.appendingPathComponent("bad.checkpoint")
            try Data("not a checkpoint\n".utf8).write(to: unreadable)
            let refused = try await runner.run(["audit", "verify", "--server", copy.url, "--checkpoint-file", unreadable.path])
            #expect(refused.status == 2 && refused.error.contains("not a kept checkpoint"), "\(refused.error)")
        }
    }
}
