import Foundation
import Glibc
import Testing
import TestSupport

/// The tests' child-process runner: exit codes, signals, pipes, and the case Foundation's
/// `Process` crashes on (a parent with more than about 1,360 open descriptors).
@Suite struct ChildProcessTests {
    @Test func reportsTheExitCode() throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 3"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 3)
        #expect(!process.isRunning)
    }

    @Test func terminateEndsTheChildWithSIGTERM() throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["600"]
        try process.run()
        #expect(process.isRunning)
        #expect(process.processIdentifier > 0)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGTERM)
        process.terminate()  // once reaped, a no-op: the id may belong to someone else by now
    }

    @Test func pipesCarryBothWaysAndCloseAtExit() throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "cat; echo done >&2"]
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = .pipe(input)
        process.standardOutput = .pipe(output)
        process.standardError = .pipe(error)
        process.environment = ["PATH": "/usr/bin:/bin"]
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data("hello".utf8))
        try input.fileHandleForWriting.close()
        #expect(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "hello")
        #expect(String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "done\n")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func aMissingExecutableIsATypedError() {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/nonexistent/health")
        #expect(throws: ChildProcess.LaunchError.self) { try process.run() }
        #expect(!process.isRunning)
    }

    /// 1,600 more descriptors than usual: the child starts, and none of them reaches it.
    @Test func startsWithManyDescriptorsOpenAndPassesNoneOfThem() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let wanted = rlim_t(4096)
        if limit.rlim_cur < wanted, limit.rlim_max >= wanted {
            limit.rlim_cur = wanted
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        // The parent's descriptors are numbered from 10 up: the child's shell lists its own
        // descriptors through one it opens itself (the lowest free, 3), which must not be taken
        // for one passed on.
        let opened = open("/dev/null", O_RDONLY)
        try #require(opened >= 0)
        let null = fcntl(opened, F_DUPFD, 10)
        close(opened)
        try #require(null >= 10)
        var extra: [Int32] = []
        defer {
            extra.forEach { close($0) }
            close(null)
        }
        for _ in 0..<1_600 {
            let copy = fcntl(null, F_DUPFD, 10)
            guard copy >= 0 else { break }
            extra.append(copy)
        }
        try #require(extra.count == 1_600, "the descriptor limit allows only \(extra.count)")

        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "for f in /proc/$$/fd/*; do echo ${f##*/}; done"]
        let output = Pipe()
        process.standardOutput = .pipe(output)
        try process.run()
        let listed = Set(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").compactMap { Int32($0) })
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(listed.isSuperset(of: [0, 1, 2]))
        #expect(listed.isDisjoint(with: extra + [null]))
    }
}
