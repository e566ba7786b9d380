import Foundation
import TestSupport

/// Go with Debian's `golang.org/x/mod` (packages `golang-go` and `golang-golang-x-mod-dev`, which
/// scripts/test.sh installs), running `scripts/tlog-peer/main.go`: `sumdb/note` opens the audit
/// log's checkpoint with the server's verifier key and `sumdb/tlog` checks its tiles. Debian's
/// packages are used as Debian builds Go programs offline: GOPATH mode over /usr/share/gocode.
enum GoPeer {
    static let gocode = "/usr/share/gocode"

    /// The `go` command, when it and Debian's x/mod sources are installed.
    static let go: URL? = {
        guard FileManager.default.fileExists(atPath: gocode + "/src/golang.org/x/mod/sumdb/note/note.go") else { return nil }
        for folder in ["/usr/bin", "/usr/lib/go/bin", "/usr/local/go/bin"] {
            let candidate = URL(fileURLWithPath: folder).appendingPathComponent("go")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }()

    static let why = "install Debian's golang-go and golang-golang-x-mod-dev (scripts/test.sh does) for the Go signed-note and tlog peer"

    static let program = TestData.repositoryRoot.appendingPathComponent("scripts/tlog-peer/main.go")

    /// Runs the peer with `arguments`; its exit status and output (standard output and error).
    /// The child is waited for on a thread of its own, not on Swift's cooperative pool.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        guard let go else { throw TestSkip(why) }
        let cache = TestData.repositoryRoot.appendingPathComponent(".build/tlog-peer-gocache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let process = ChildProcess()
        process.executableURL = go
        process.arguments = ["run", program.path] + arguments
        var environment = ["GO111MODULE": "off", "GOPATH": gocode, "GOCACHE": cache.path, "GOFLAGS": "", "GOTOOLCHAIN": "local",
                           "CGO_ENABLED": "0", "PATH": "/usr/bin:/bin"]
        environment["HOME"] = ProcessInfo.processInfo.environment["HOME"] ?? "/tmp"
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = .pipe(output)
        process.standardError = .pipe(errors)
        try process.run()
        return await withCheckedContinuation { continuation in
            Thread {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                let messages = errors.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: data + messages, as: UTF8.self)))
            }.start()
        }
    }
}
