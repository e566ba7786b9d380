import Testing

/// The conformance suite on `FhirBlocksPostgres.PostgresTrustStore` (a new database per case).
/// Needs a server: `scripts/test.sh` starts one when PostgreSQL is installed; otherwise set
/// `OPENHEALTHKIT_POSTGRES_URL` (for example to what `scripts/postgres.sh start` prints).
@Suite(
    "TrustStore conformance: PostgreSQL",
    // Reported as skipped, with this reason, when no server is configured.
    .enabled(if: StoreBackends.postgresAvailable,
             "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against (scripts/test.sh starts one when PostgreSQL is installed)")
)
struct PostgresConformanceTests {
    @Test("PostgreSQL", arguments: ConformanceChecks.all)
    func conformance(_ check: ConformanceCheck) async throws {
        try await StoreBackends.withSession(.postgres, check.run)
    }
}
