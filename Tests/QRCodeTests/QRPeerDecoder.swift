import Foundation
import Testing
import TestSupport
@testable import QRCode

/// The peer decoder: zxing-cpp (PyPI `zxing-cpp`, imported as `zxingcpp`) with Pillow, run
/// through `scripts/qr-decode.py` in the virtual environment named by
/// `OPENHEALTHKIT_PEERS_VENV` (CI creates it with `python3 -m venv` and
/// `pip install zxing-cpp pillow`). Tests that need it are skipped when it is absent.
enum QRPeerDecoder {
    struct Decoded: Decodable {
        let file: String
        let text: String?
        let bytes: String?
        let ec_level: String?
        let extra: Extra?
        let error: String?

        struct Extra: Decodable {
            let Version: String?
            let ECLevel: String?
            let DataMask: Int?
        }

        /// The raw content bytes.
        var contentBytes: [UInt8] {
            guard let bytes else { return [] }
            var result: [UInt8] = []
            var index = bytes.startIndex
            while index < bytes.endIndex, let next = bytes.index(index, offsetBy: 2, limitedBy: bytes.endIndex),
                  let value = UInt8(bytes[index..<next], radix: 16) {
                result.append(value)
                index = next
            }
            return result
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let script = QRTestSupport.repositoryRoot.appendingPathComponent("scripts/qr-decode.py")

    /// The venv's python, when `OPENHEALTHKIT_PEERS_VENV` names a venv in which zxingcpp and
    /// PIL import.
    static let python: URL? = {
        guard let path = ProcessInfo.processInfo.environment["OPENHEALTHKIT_PEERS_VENV"], !path.isEmpty else { return nil }
        let python = URL(fileURLWithPath: path).appendingPathComponent("bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path),
              (try? run(python, ["-c", "import zxingcpp, PIL"]).status) == 0 else { return nil }
        return python
    }()

    static var isAvailable: Bool { python != nil }

    static let unavailable = Comment(rawValue:
        "peer decoder unavailable: set OPENHEALTHKIT_PEERS_VENV to a venv made with `python3 -m venv VENV && "
        + "VENV/bin/pip install zxing-cpp pillow` to decode the symbols with zxing-cpp")

    /// Writes each code as a PNG under the system temporary directory, decodes them all in one
    /// run of the script, and removes the files.
    /// Runs on a Dispatch thread: waiting for the peer process must not hold one of the few
    /// threads of Swift's cooperative pool, which the rest of the suite shares.
    static func decode(_ codes: [QRCode], moduleSize: Int = 4) async throws -> [Decoded] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try decodeBlocking(codes, moduleSize: moduleSize) })
            }
        }
    }

    private static func decodeBlocking(_ codes: [QRCode], moduleSize: Int) throws -> [Decoded] {
        guard let python else { throw Failure(description: "no peer venv") }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("openhealthkit-qrcode-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths: [String] = []
        for (index, code) in codes.enumerated() {
            let file = folder.appendingPathComponent("qr-\(index).png")
            try Data(code.png(moduleSize: moduleSize, border: 4)).write(to: file)
            paths.append(file.path)
        }
        let errorFile = folder.appendingPathComponent("stderr.txt")
        let (status, output) = try run(python, [script.path, "--json"] + paths, errorFile: errorFile)
        guard status == 0 || status == 1 else {
            let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            throw Failure(description: "qr-decode.py exited \(status): \(errors)")
        }
        let decoded = try JSONDecoder().decode([Decoded].self, from: output)
        guard decoded.count == codes.count else { throw Failure(description: "\(decoded.count) results for \(codes.count) files") }
        return decoded
    }

    /// Runs `executable`, returning its status and standard output; standard error goes to
    /// `errorFile` (or is discarded) so that only one pipe needs draining.
    private static func run(_ executable: URL, _ arguments: [String], errorFile: URL? = nil) throws -> (status: Int32, output: Data) {
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = .pipe(output)
        process.standardInput = .null
        if let errorFile {
            _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
            process.standardError = .file(try FileHandle(forWritingTo: errorFile))
        } else {
            process.standardError = .null
        }
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }
}
