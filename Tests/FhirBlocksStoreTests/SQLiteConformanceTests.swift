import Testing

/// The conformance suite on `FhirBlocksSQLite.SQLiteTrustStore` (a temporary file per case).
@Suite("TrustStore conformance: SQLite")
struct SQLiteConformanceTests {
    @Test("SQLite", arguments: ConformanceChecks.all)
    func conformance(_ check: ConformanceCheck) async throws {
        try await StoreBackends.withSession(.sqlite, check.run)
    }
}
