import Foundation
@testable import health
import Testing
import TestSupport

@Suite("Reading an input file into bytes")
struct FileBytesTests {
    @Test("a regular file of any size reads back exactly what Foundation wrote, empty and past the 64 KiB chunk included")
    func regularFilesOfRandomSizes() throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        var generator = SplitMix64(seed: 0x13F1)
        for size in [0, 1, 4_095, 4_096, 65_535, 65_536, 65_537, 300_001] + (0..<12).map({ _ in generator.int(0...200_000) }) {
            let bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let path = runner.folder.appendingPathComponent("input-\(size).bin").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(fileBytes(atPath: path) == bytes, "size \(size)")
        }
    }

    @Test("a file whose reported size is 0 but holds bytes (a /proc file) is read to its end")
    func specialFileOfReportedSizeZero() throws {
        let path = "/proc/self/status"
        guard FileManager.default.fileExists(atPath: path) else { return }
        let bytes = try #require(fileBytes(atPath: path))
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("Name:"))
    }

    @Test("a folder and a missing file give nil, which readInput turns into a usage error")
    func folderAndMissingFile() {
        let runner = CommandRunner()
        defer { runner.remove() }
        #expect(fileBytes(atPath: runner.folder.path) == nil)
        let missing = runner.folder.appendingPathComponent("missing.smart-health-card").path
        #expect(fileBytes(atPath: missing) == nil)
        #expect(throws: UsageError.self) { try readInput(missing) }
    }

    @Test("unreadable standard input (a folder; a closed one fails alike) is a usage error, exit 2, not a trap in readDataToEndOfFile",
          arguments: [["fhir", "validate", "-"], ["fhir", "format", "-"], ["shc", "decode", "-"], ["shc", "verify", "-"]])
    func unreadableStandardInput(arguments: [String]) throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let folder = try #require(FileHandle(forReadingAtPath: runner.folder.path))
        defer { try? folder.close() }
        let errorPath = runner.folder.appendingPathComponent("error.txt").path
        #expect(FileManager.default.createFile(atPath: errorPath, contents: nil))
        let error = try #require(FileHandle(forWritingAtPath: errorPath))
        let process = ChildProcess()
        process.executableURL = CommandRunner.executable
        process.arguments = arguments
        process.standardInput = .file(folder)
        process.standardOutput = .null
        process.standardError = .file(error)
        try process.run()
        process.waitUntilExit()
        try error.close()
        let message = String(decoding: fileBytes(atPath: errorPath) ?? [], as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 2, "status \(process.terminationStatus): \(message.prefix(300))")
        #expect(message.contains("cannot read standard input"))
    }
}
