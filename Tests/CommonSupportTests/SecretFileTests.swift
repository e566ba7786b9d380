import CommonSupport
import Foundation
import Testing

@Suite("Secret files")
struct SecretFileTests {
    private static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)").path
        try SecretFile.createFolder(path)
        return path
    }

    private static func mode(_ path: String) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    /// The umask is the process's, shared with tests running beside this one: the same write
    /// under umask 000 is tested in a child process (healthTests, `shc keygen`).
    @Test("A new file has mode 0600 and its folder 0700")
    func privateFromCreation() throws {
        let folder = try Self.folder() + "/nested/deeper"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try SecretFile.createFolder(folder)
        #expect(try Self.mode(folder) == 0o700)
        try SecretFile.save(Array("secret".utf8), to: folder + "/key", replacing: false)
        #expect(try Self.mode(folder + "/key") == 0o600)
        #expect(try SecretFile.load(folder + "/key", maximumSize: 64) == Array("secret".utf8))
        // Nothing is left behind but the file itself.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["key"])
    }

    @Test("Without replacing, an existing file is refused and left as it is; with it, replaced whole")
    func neverOverwrites() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/key"
        try SecretFile.save(Array("first".utf8), to: path, replacing: false)
        #expect(throws: SecretFileError.alreadyExists(path: path)) { try SecretFile.save(Array("second".utf8), to: path, replacing: false) }
        #expect(try SecretFile.load(path, maximumSize: 64) == Array("first".utf8))
        try SecretFile.save(Array("third".utf8), to: path, replacing: true)
        #expect(try SecretFile.load(path, maximumSize: 64) == Array("third".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["key"])
    }

    @Test("Many writers at once: exactly one creates the file, the others are told it exists")
    func oneWinner() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/key"
        let winners = await withTaskGroup(of: Int?.self) { group in
            for writer in 0..<16 {
                group.addTask {
                    do {
                        try SecretFile.save(Array("writer \(writer)".utf8), to: path, replacing: false)
                        return writer
                    } catch {
                        return nil
                    }
                }
            }
            var winners: [Int] = []
            for await winner in group { if let winner { winners.append(winner) } }
            return winners
        }
        #expect(winners.count == 1)
        #expect(try SecretFile.load(path, maximumSize: 64) == Array("writer \(winners.first ?? -1)".utf8))
    }

    @Test("Reading refuses files open to others, symbolic links, folders, missing and oversized files")
    func carefulReading() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/key"
        try SecretFile.save(Array(repeating: 0x41, count: 100), to: path, replacing: false)
        #expect(throws: SecretFileError.tooLarge(path: path, maximum: 99)) { try SecretFile.load(path, maximumSize: 99) }
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        #expect(throws: SecretFileError.insecurePermissions(path: path, mode: 0o640)) { try SecretFile.load(path, maximumSize: 1000) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let link = folder + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(throws: SecretFileError.notARegularFile(path: link)) { try SecretFile.load(link, maximumSize: 1000) }
        #expect(throws: SecretFileError.notARegularFile(path: folder)) { try SecretFile.load(folder, maximumSize: 1000) }
        #expect(throws: SecretFileError.missing(path: folder + "/absent")) { try SecretFile.load(folder + "/absent", maximumSize: 1000) }
        // Writing never follows a link planted at the target: link(2) refuses it as existing.
        #expect(throws: SecretFileError.alreadyExists(path: link)) { try SecretFile.save([1], to: link, replacing: false) }
        #expect(try SecretFile.load(path, maximumSize: 1000).count == 100)
    }

    @Test("An error names the path, never the contents")
    func messages() {
        let error = SecretFileError.insecurePermissions(path: "/k", mode: 0o644)
        #expect(error.description.contains("/k") && error.description.contains("644") && error.description.contains("chmod 600"))
    }
}
