import FhirBlocks
import FhirBlocksDeployment
import FhirBlocksServer
import Foundation
import TestSupport
import Testing

@Suite("The audit log's signing key file")
struct AuditSigningKeyFileTests {
    private static func folder() -> String {
        ScratchFolders.url("audit-key").appendingPathComponent("data").path
    }

    @Test("Created once, private, and the same key on every later start")
    func createdOnceAndKept() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try AuditSigningKeyFile.loadOrCreate(in: folder)
        let path = folder + "/" + AuditSigningKeyFile.fileName
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let second = try AuditSigningKeyFile.loadOrCreate(in: folder)
        #expect(second.publicKey.spkiBase64 == first.publicKey.spkiBase64)
    }

    @Test("Servers starting together agree on one key")
    func concurrentStarts() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keys = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<8 { group.addTask { try? AuditSigningKeyFile.loadOrCreate(in: folder).publicKey.spkiBase64 } }
            var keys: [String?] = []
            for await key in group { keys.append(key) }
            return keys
        }
        #expect(keys.count == 8 && Set(keys).count == 1 && keys.first != nil)
    }

    @Test("A key file others can read, or one that is not a key, is refused and left as it is")
    func refusals() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try AuditSigningKeyFile.loadOrCreate(in: folder)
        let path = folder + "/" + AuditSigningKeyFile.fileName
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect { try AuditSigningKeyFile.loadOrCreate(in: folder) } throws: { error in
            "\(error)".contains("chmod 600")
        }
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect(throws: AuditSigningKeyFile.Failure.notAKey(path: path)) { try AuditSigningKeyFile.loadOrCreate(in: folder) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("not a key".utf8))
    }
}

@Suite("Reading the audit key without creating it")
struct AuditSigningKeyFileReadTests {
    @Test("load(in:) reads the key the server created, refuses a missing one without creating it, and one open to others like the server")
    func loadOnly() throws {
        let folder = ScratchFolders.url("audit-key-read").appendingPathComponent("data").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect { try AuditSigningKeyFile.load(in: folder) } throws: { "\($0)".contains("does not exist") }
        #expect(!FileManager.default.fileExists(atPath: folder))
        let created = try AuditSigningKeyFile.loadOrCreate(in: folder)
        #expect(try AuditSigningKeyFile.load(in: folder).publicKey.spkiBase64 == created.publicKey.spkiBase64)
        let path = folder + "/" + AuditSigningKeyFile.fileName
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path)
        var reader: AuditSigningKeyFile.Failure?, server: AuditSigningKeyFile.Failure?
        do { _ = try AuditSigningKeyFile.load(in: folder) } catch { reader = error }
        do { _ = try AuditSigningKeyFile.loadOrCreate(in: folder) } catch { server = error }
        #expect(reader != nil && reader == server)
        #expect("\(reader.map { "\($0)" } ?? "")".contains("chmod 600"))
    }
}
