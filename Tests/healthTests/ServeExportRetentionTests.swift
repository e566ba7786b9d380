import Foundation
@testable import health
import Testing

/// `health serve --export-retention HOURS`: read into the server's retention in seconds (24 h by
/// default, a fraction of an hour rounded up to the second); 0, a negative number and more than
/// a year are refused before any store is opened.
@Suite struct ServeExportRetentionTests {
    @Test func hoursBecomeTheServersRetentionInSeconds() throws {
        #expect(try ServeCommand.parse([]).serverConfiguration().exportRetentionSeconds == 86_400)
        #expect(try ServeCommand.parse(["--export-retention", "2"]).serverConfiguration().exportRetentionSeconds == 7_200)
        #expect(try ServeCommand.parse(["--export-retention", "0.25"]).serverConfiguration().exportRetentionSeconds == 900)
        #expect(try ServeCommand.parse(["--export-retention=0.0001"]).serverConfiguration().exportRetentionSeconds == 1)
        #expect(try ServeCommand.parse(["--export-retention", "8760"]).serverConfiguration().exportRetentionSeconds == 8_760 * 3_600)
    }

    @Test func zeroNegativeAndMoreThanAYearAreRefused() async throws {
        for value in ["0", "-1", "-0.5", "8761"] {
            #expect(throws: (any Error).self, "\(value)") { try ServeCommand.parse(["--export-retention=\(value)"]).serverConfiguration() }
        }
        let runner = CommandRunner()
        defer { runner.remove() }
        for value in ["0", "-2"] {
            let result = try await runner.run(["serve", "--port", "0", "--export-retention=\(value)",
                                               "--data-dir", runner.folder.appendingPathComponent("data").path])
            #expect(result.status == 2 && result.error.contains("--export-retention must be more than 0 and at most 8760 hours"),
                    "\(value): \(result.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: runner.folder.appendingPathComponent("data").path), "a refused start opens no store")
    }
}
