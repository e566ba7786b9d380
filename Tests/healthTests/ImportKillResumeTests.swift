import AppleHealthExportGenerator
import Foundation
import Testing

/// `health import apple-health` saves in batches that share a transaction until it is due (a bulk write): a SIGKILL
/// loses the batches of the open transaction, never part of one, and running the import again stores them.
@Suite("health import apple-health killed and run again")
struct ImportKillResumeTests {
    /// What an import's summary says was stored (or was already in the store): the total and the lines by type.
    static func counts(_ output: String, already: Bool) -> (total: Int?, types: [String: String]) {
        let suffix = already ? " already in the store" : " stored"
        var types: [String: String] = [:]
        var total: Int?
        for line in output.split(separator: "\n") {
            if line.hasPrefix("Imported ") {
                let words = line.split(separator: " ")
                if already, let index = words.firstIndex(of: "already") { total = Int(words[index - 1]) }
                if !already { total = Int(words[1]) }
            } else if line.hasPrefix("  "), line.hasSuffix(suffix), let colon = line.firstIndex(of: ":") {
                types[String(line[..<colon])] = String(line[line.index(after: colon)...].dropLast(suffix.count))
            }
        }
        return (total, types)
    }

    /// Runs the import with `--progress` and kills it once it has reported `lines` saved batches.
    /// - Returns: whether it was killed (false: it ended first).
    static func importKilled(_ runner: CommandRunner, _ arguments: [String], after lines: Int) async throws -> Bool {
        let (process, _, error) = try runner.launch(arguments + ["--progress"])
        return await withCheckedContinuation { continuation in
            // Read on a Dispatch thread, so a busy cooperative pool cannot delay the kill.
            DispatchQueue.global().async {
                var seen = 0
                var pending = Data()
                let reader = error.fileHandleForReading
                reading: while true {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending.removeSubrange(pending.startIndex...newline)
                        if line.hasPrefix("Imported ") { seen += 1 }
                        if seen >= lines {
                            kill(process.processIdentifier, SIGKILL)
                            break reading
                        }
                    }
                }
                process.waitUntilExit()
                continuation.resume(returning: process.terminationReason == .uncaughtSignal)
            }
        }
    }

    @Test("Killed twice part way, then run to the end: the store holds what one uninterrupted import stores, by type")
    func killTwiceThenResume() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let xml = runner.folder.appendingPathComponent("export.xml")
        try AppleHealthExportGenerator.writePersonExport(days: 6, to: xml, routes: runner.folder.appendingPathComponent("workout-routes"))
        let arguments = ["import", "apple-health", xml.path, "--batch-size", "300"]

        // The same import, uninterrupted, into a store of its own.
        let clean = try await runner.run(arguments + ["--store", runner.folder.appendingPathComponent("clean.sqlite").path])
        #expect(clean.status == 0, "\(clean.error)")
        let expected = Self.counts(clean.output, already: false)
        let total = try #require(expected.total)
        #expect(total > 10_000 && expected.types.count > 10, "\(clean.output)")

        #expect(try await Self.importKilled(runner, arguments, after: 4), "the import ended before it was killed")
        #expect(try await Self.importKilled(runner, arguments, after: 15), "the second import ended before it was killed")
        let resumed = try await runner.run(arguments)
        #expect(resumed.status == 0, "\(resumed.error)")
        // A last run stores nothing: everything one uninterrupted import stores is there, once.
        let last = try await runner.run(arguments)
        #expect(last.status == 0, "\(last.error)")
        #expect(last.output.contains("Imported 0 samples"), "\(last.output)")
        let stored = Self.counts(last.output, already: true)
        #expect(stored.total == total, "\(last.output)")
        #expect(stored.types == expected.types, "\(last.output)")
    }
}
