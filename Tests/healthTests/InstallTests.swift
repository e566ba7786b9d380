import Foundation
import Testing
import TestSupport
@testable import health

/// `health --version`, and scripts/install.sh run on the built binary (the release build it makes
/// by default, and the Debian package, are proven by .ci/run on a fresh machine).
@Suite("Install: health --version and scripts/install.sh")
struct InstallTests {
    /// `health --version`'s one line: `health 0.9.0 (commit 77fe566)`.
    static var versionLine: Regex<(Substring, Substring, Substring)> {
        #/^health (\d+\.\d+\.\d+) \(commit ([0-9a-f]{7,40}|unknown)\)\n$/#
    }

    /// The clone's HEAD (full hash), or nil when the sources are not a git clone.
    static func head() async throws -> String? {
        let root = TestData.repositoryRoot
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent(".git").path) else { return nil }
        let git = try await CommandRunner().run(["git", "-c", "safe.directory=*", "-C", root.path, "rev-parse", "HEAD"],
                                                executable: URL(fileURLWithPath: "/usr/bin/env"))
        try #require(git.status == 0, "git rev-parse HEAD failed: \(git.error)")
        return git.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("health --version prints the version and the commit of the clone it was built from")
    func version() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let result = try await runner.run(["--version"])
        #expect(result.status == 0, "\(result.error)")
        let match = try #require(result.output.wholeMatch(of: Self.versionLine), "unexpected: \(result.output)")
        #expect(String(match.1) == HealthVersion.number)
        let commit = String(match.2)
        if let head = try await Self.head() {
            // The build this test runs was made from HEAD (swift build, then swift test): a commit
            // made in between leaves an older binary, which the next build brings up to date.
            #expect(head.hasPrefix(commit), "health says commit \(commit), the clone's HEAD is \(head)")
        } else {
            #expect(commit == "unknown")
        }
    }

    /// Runs scripts/install.sh with `arguments`.
    static func install(_ arguments: [String], runner: CommandRunner) async throws -> CommandRunner.Result {
        let script = TestData.repositoryRoot.appendingPathComponent("scripts/install.sh").path
        return try await runner.run([script] + arguments, executable: URL(fileURLWithPath: "/bin/bash"))
    }

    @Test("install.sh PREFIX installs the binary, its resources, manual pages and completions under PREFIX")
    func installIntoPrefix() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let prefix = runner.folder.appendingPathComponent("prefix with space")
        let built = CommandRunner.executable
        let result = try await Self.install(["--binary", built.path, prefix.path], runner: runner)
        #expect(result.status == 0, "\(result.output)\n\(result.error)")

        func file(_ path: String) -> URL { prefix.appendingPathComponent(path) }
        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: file(path).path) }
        // PREFIX/bin holds `health` alone, a link to the binary beside its resources.
        #expect(try FileManager.default.contentsOfDirectory(atPath: file("bin").path) == ["health"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file("bin/health").path) == "../lib/openhealthkit/health")
        #expect(exists("lib/openhealthkit/OpenHealthKit_health.resources/Resources/synthea-patient.json"))
        let installed = try await runner.run(["--version"], executable: file("bin/health"))
        let original = try await runner.run(["--version"])
        #expect(installed.status == 0 && installed.output == original.output, "\(installed.output)\(installed.error)")
        #expect(result.output.contains("Installed \(original.output.trimmingCharacters(in: .newlines))."))
        // Stripped: no symbol table left.
        let symbols = try await runner.run(["nm", file("lib/openhealthkit/health").path], executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(symbols.error.contains("no symbols"), "\(symbols.error)")

        // Each shell's completion, as swift-argument-parser writes it (Bool results: a failure does
        // not print the whole script).
        let bash = try String(contentsOf: file("share/bash-completion/completions/health"), encoding: .utf8)
        let bashCompletes = bash.contains("complete -o filenames -F _health health")
        #expect(bashCompletes)
        let zsh = try String(contentsOf: file("share/zsh/site-functions/_health"), encoding: .utf8)
        let zshCompletes = zsh.hasPrefix("#compdef health")
        #expect(zshCompletes)
        let fish = try String(contentsOf: file("share/fish/vendor_completions.d/health.fish"), encoding: .utf8)
        let fishCompletes = fish.contains("complete -c 'health'")
        #expect(fishCompletes)

        // The manual pages need swift-argument-parser's generate-manual tool, which install.sh
        // builds itself; given a binary, it uses the one built beside it when there is one.
        if FileManager.default.isExecutableFile(atPath: built.deletingLastPathComponent().appendingPathComponent("generate-manual").path) {
            let page = try String(contentsOf: file("share/man/man1/health.1"), encoding: .utf8)
            #expect(page.contains(".Dt HEALTH 1"))
            #expect(exists("share/man/man1/health.store.query.1"))
        } else {
            #expect(result.error.contains("the manual pages were not installed"))
        }
    }

    @Test("install.sh refuses an unknown option and a second PREFIX, and installs nothing")
    func refusesBadArguments() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let prefix = runner.folder.appendingPathComponent("prefix").path
        let unknown = try await Self.install(["--prefix", prefix], runner: runner)
        #expect(unknown.status == 2)
        #expect(unknown.error == "error: unknown option '--prefix' (see scripts/install.sh --help)\n")
        let two = try await Self.install([prefix, "other"], runner: runner)
        #expect(two.status == 2)
        #expect(two.error.contains("one PREFIX at most"))
        #expect(!FileManager.default.fileExists(atPath: prefix))
    }
}
