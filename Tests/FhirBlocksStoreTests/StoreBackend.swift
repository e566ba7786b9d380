/// The ``FhirBlocksStore/TrustStore`` implementations the conformance suite runs against.
enum StoreBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    /// `FhirBlocksSQLite.SQLiteTrustStore` on a temporary file.
    case sqlite = "SQLite"
    /// `FhirBlocksPostgres.PostgresTrustStore` on a fresh database of the server named by
    /// `OPENHEALTHKIT_POSTGRES_URL`.
    case postgres = "PostgreSQL"

    var description: String { rawValue }
}
