import Foundation

/// The Python of the virtual environment `OPENHEALTHKIT_PEERS_VENV` names (scripts/test.sh
/// makes it, with the peers the interoperability tests compare against), and running a script with it.
public enum PythonPeer {
    /// The venv's python; nil when the variable is unset or names no venv.
    public static let python: URL? = {
        guard let venv = ProcessInfo.processInfo.environment["OPENHEALTHKIT_PEERS_VENV"], !venv.isEmpty else { return nil }
        let python = URL(fileURLWithPath: venv).appendingPathComponent("bin/python")
        return FileManager.default.isExecutableFile(atPath: python.path) ? python : nil
    }()

    /// Runs `script` with `arguments`; returns its exit status and standard output (standard
    /// error is discarded).
    public static func run(_ script: URL, _ arguments: [String]) throws -> (status: Int32, output: [UInt8]) {
        let process = ChildProcess()
        process.executableURL = python
        process.arguments = [script.path] + arguments
        let output = Pipe()
        process.standardOutput = .pipe(output)
        process.standardError = .null
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, Array(data))
    }
}
