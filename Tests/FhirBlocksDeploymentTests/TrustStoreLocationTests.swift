import FhirBlocksDeployment
import Foundation
import Testing

@Suite("Naming a trust server's store: a SQLite file, a data folder or a PostgreSQL URL")
struct TrustStoreLocationTests {
    @Test("postgres:// and postgresql:// URLs are PostgreSQL; a folder is its fhirblocks.sqlite; any other path is the file; other schemes are refused")
    func parsing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("location-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try TrustStoreLocation(parsing: "postgres://u:secret@h:5432/db") == .postgres(url: "postgres://u:secret@h:5432/db"))
        #expect(try TrustStoreLocation(parsing: "postgresql://u@h/db") == .postgres(url: "postgresql://u@h/db"))
        #expect(try TrustStoreLocation(parsing: "POSTGRES://u@h/DB") == .postgres(url: "postgres://u@h/DB"))
        #expect(try TrustStoreLocation(parsing: "/") == .sqlite(path: "/fhirblocks.sqlite"))
        #expect(try TrustStoreLocation(parsing: folder) == .sqlite(path: folder + "/fhirblocks.sqlite"))
        #expect(try TrustStoreLocation(parsing: folder + "/") == .sqlite(path: folder + "/fhirblocks.sqlite"))
        #expect(try TrustStoreLocation(parsing: "not-yet/") == .sqlite(path: "not-yet/fhirblocks.sqlite"))
        #expect(try TrustStoreLocation(parsing: folder + "/trust.sqlite") == .sqlite(path: folder + "/trust.sqlite"))
        #expect(try TrustStoreLocation(parsing: folder + "/trust.sqlite").folder == folder)
        #expect(try TrustStoreLocation(parsing: "postgres://u@h/db").folder == nil)
        #expect(throws: TrustStoreLocation.Failure.unsupportedScheme("mysql")) { try TrustStoreLocation(parsing: "mysql://u@h/db") }
        #expect(throws: TrustStoreLocation.Failure.empty) { try TrustStoreLocation(parsing: "") }
        // The password never appears in what is shown.
        #expect(!"\(TrustStoreLocation.postgres(url: "postgres://u:secret@h:5432/db"))".contains("secret"))
    }

    @Test("Read-only, a SQLite file that does not exist is refused and not created")
    func readOnlyMissingFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("location-\(UUID().uuidString).sqlite").path
        #expect { _ = try TrustStoreLocation.sqlite(path: path).open(readOnly: true) } throws: { "\($0)".contains("no such file") }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
