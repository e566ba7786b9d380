import FhirBlocks

/// Everything the FhirBlocks server keeps, behind one protocol with two real implementations:
/// SQLite through GRDB (`FhirBlocksSQLite`, the embedded default) and PostgreSQL through
/// postgres-nio (`FhirBlocksPostgres`). Both pass the same conformance suite
/// (`Tests/FhirBlocksStoreTests`), and both take their tables from ``TrustSchema`` and their
/// statements from ``TrustSQL`` and ``SearchSQL``, the differences between the two databases
/// in ``SQLDialect``.
///
/// The requirements are split by concern: ``LedgerStore`` (every write, the registrations,
/// permissions and the ledger's version), ``TokenStore`` (access tokens and SMART App Launch),
/// ``ResourceStore`` (FHIR resources and search), ``AuditStore`` (the log and its
/// checkpoints) and ``LinkStore`` (the SMART Health Links hosted for wallets), with the
/// replay caches of `FhirBlocks` (`NonceStore`, `AuthorizationCodeStore`).
///
/// Writes go through ``LedgerStore/commit(_:)`` (but the links', which are ``LinkStore``'s own
/// and hold no audit entry): one call is one database transaction, so
/// a grant and the audit entry that records it are stored together or not at all, and an
/// acknowledged request survives a crash. The audit log is append-only; its indexes are
/// assigned inside the transaction, densely from 0, in commit order.
public protocol TrustStore: LedgerStore, TokenStore, ResourceStore, AuditStore, LinkStore, ExportStore, BackendClientStore, NonceStore, AuthorizationCodeStore {
    /// Creates or upgrades the schema. Safe to call on every start.
    func migrate() async throws(TrustStoreError)

    /// Releases connections. The store is not used afterwards.
    func close() async
}
