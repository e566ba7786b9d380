@testable import FhirBlocksSQLite
import FhirBlocksStore
import Testing

@Suite("The SQLite store names the SQLite it needs")
struct SQLiteVersionTests {
    @Test("a SQLite older than 3.35.0 is refused in words; 3.35.0 and this machine's are accepted")
    func minimumVersion() throws {
        #expect(throws: TrustStoreError.self) { try SQLiteTrustStore.requireSQLiteVersion(3_034_001) }
        do {
            try SQLiteTrustStore.requireSQLiteVersion(3_031_001)
            Issue.record("3.31.1 was accepted")
        } catch {
            #expect("\(error)".contains("3.31.1"))
            #expect("\(error)".contains("3.35.0 or later"))
        }
        try SQLiteTrustStore.requireSQLiteVersion(3_035_000)
        try SQLiteTrustStore.requireSQLiteVersion()
    }
}
