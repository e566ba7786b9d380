import Foundation
import Testing

@Suite("The command runner the CLI tests use")
struct CommandRunnerTests {
    @Test("A child that fills standard error before writing standard output is read to the end")
    func largeStandardError() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        // 256 KiB on standard error (four times a pipe's buffer), then a line on standard output:
        // read one pipe after the other, this would block both processes.
        let script = "head -c 262144 /dev/zero | tr '\\0' e >&2; echo done"
        let result = try await runner.run(["-c", script], executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.status == 0)
        #expect(result.output == "done\n")
        #expect(result.error.utf8.count == 262_144 && result.error.allSatisfy { $0 == "e" })
    }
}
