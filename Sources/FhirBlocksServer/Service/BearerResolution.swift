import FhirBlocks

/// An `Authorization` header resolved to the access it grants (nil: none, the token is
/// missing, unknown, expired, revoked or no longer backed by a permission), against the
/// permission ledger this server had installed, whose version is ``ledgerVersion``.
///
/// The resolution is provisional until that version is found to be the store's: the FHIR read
/// by id, the one route that takes it (``BearerAuthenticationMiddleware/Policy/unconfirmed``),
/// reads the version with the resource, in one read, and resolves the header again when the
/// ledger moved.
struct BearerResolution: Sendable {
    /// The header value resolved.
    let header: String
    /// What it grants under the ledger of ``ledgerVersion``.
    let access: TrustService.BearerAccess?
    /// The ``LedgerCache/version`` of the ledger and token cache the header was resolved against.
    let ledgerVersion: Int64
}
