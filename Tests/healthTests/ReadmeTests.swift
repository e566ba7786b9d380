import Foundation
import Testing

/// The README is a guide a person reads in five minutes; the reference lives under docs/.
@Suite("README")
struct ReadmeTests {
    /// README.md, found from this file (Tests/healthTests/ReadmeTests.swift).
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The README's lines, counted as `wc -l` counts them (a last line without a newline counts too).
    static func lineCount(_ text: String) -> Int {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return text.hasSuffix("\n") ? lines.count - 1 : lines.count
    }

    @Test("README.md stays under 400 lines")
    func short() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let lines = Self.lineCount(text)
        #expect(lines < 400, "README.md has \(lines) lines; it stays under 400: move reference material to docs/")
    }

    @Test("the scripts the README tells a person to run exist and are executable")
    func scriptsExist() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let root = Self.readme.deletingLastPathComponent()
        let scripts = Set(text.matches(of: #/scripts/[A-Za-z0-9_.-]+\.(sh|py)/#).map { String($0.output.0) })
        #expect(scripts.contains("scripts/install.sh"))
        #expect(scripts.contains("scripts/package-deb.sh"))
        for script in scripts {
            #expect(FileManager.default.isExecutableFile(atPath: root.appendingPathComponent(script).path), "\(script) is not executable")
        }
    }
}
