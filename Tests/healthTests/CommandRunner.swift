import Foundation
import TestSupport

/// Runs the built `health` executable as a person would, in a private folder.
struct CommandRunner {
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    let folder: URL

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("health-cli-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    var store: String { folder.appendingPathComponent("health.sqlite").path }

    /// The `health` binary, built beside the test bundle.
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !directory.path.isEmpty, directory.path != "/" {
            let candidate = directory.appendingPathComponent("health")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/health")
    }

    /// With `outputClosed`, the reading end of standard output is closed before the child starts,
    /// as when its reader (`| head -1`) has gone: every write the child makes there fails.
    func launch(_ arguments: [String], environment: [String: String] = [:], executable: URL = Self.executable,
                outputClosed: Bool = false) throws -> (ChildProcess, Pipe, Pipe) {
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["OPENHEALTHKIT_STORE"] = store
        env["TZ"] = "UTC"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = .pipe(output)
        process.standardError = .pipe(error)
        process.standardInput = .null
        if outputClosed { try output.fileHandleForReading.close() }
        try process.run()
        return (process, output, error)
    }

    /// Runs the command to completion on a Dispatch thread, so waiting for it does not hold one
    /// of the few threads of Swift's cooperative pool.
    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:], executable: URL = Self.executable) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, environment: environment, executable: executable) })
            }
        }
    }

    /// Reads standard error on a second thread while standard output is read on this one: read
    /// one after the other, a child that fills the other pipe (64 KiB) would block, and so would
    /// the reader.
    private func runBlocking(_ arguments: [String], environment: [String: String], executable: URL) throws -> Result {
        let (process, output, error) = try launch(arguments, environment: environment, executable: executable)
        let errorRead = DispatchGroup()
        let errBox = DataBox()
        DispatchQueue.global().async(group: errorRead) { errBox.data = error.fileHandleForReading.readDataToEndOfFile() }
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        let errData = errBox.data
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
                      error: String(decoding: errData, as: UTF8.self))
    }

    /// Standard error's bytes, written by the reading thread before the group it runs in is left
    /// and read only after waiting on that group.
    private final class DataBox: @unchecked Sendable {
        var data = Data()
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
