import FhirBlocks
import FhirBlocksDeployment
import FhirBlocksServer
import Foundation
import TestSupport
import Testing

@Suite("Putting the trust server together from its data folder")
struct TrustServerDeploymentTests {
    @Test("A new folder gets a private audit key and a migrated SQLite store; reopening keeps the key")
    func sqliteFolder() async throws {
        let folder = ScratchFolders.url("deployment").appendingPathComponent("data").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try await TrustServerDeployment.open(dataDirectory: folder, configuration: ServerConfiguration())
        let key = first.service.auditKey.publicKey.spkiBase64
        await first.close()
        #expect(FileManager.default.fileExists(atPath: folder + "/fhirblocks.sqlite"))
        let keyAttributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + AuditSigningKeyFile.fileName)
        #expect((keyAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let second = try await TrustServerDeployment.open(dataDirectory: folder, configuration: ServerConfiguration())
        #expect(second.service.auditKey.publicKey.spkiBase64 == key)
        await second.close()
    }

    @Test("A database that cannot be opened is a typed failure that names the part")
    func unusableDatabase() async throws {
        let folder = ScratchFolders.url("deployment").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/fhirblocks.sqlite", withIntermediateDirectories: true)
        await #expect { _ = try await TrustServerDeployment.open(dataDirectory: folder, configuration: ServerConfiguration()) } throws: {
            "\($0)".hasPrefix("cannot open the database")
        }
        await #expect { _ = try await TrustServerDeployment.open(dataDirectory: folder, storage: .postgres(url: "mysql://u@h/db"),
                                                                 configuration: ServerConfiguration()) } throws: {
            "\($0)".hasPrefix("cannot open the database")
        }
    }
}
