import FhirBlocks

/// An `Authorization` header resolved to the access it grants (nil: none, the token is
/// missing, unknown, expired, revoked or no longer backed by a permission).
struct BearerResolution: Sendable {
    /// The header value resolved.
    let header: String
    /// What it grants now.
    let access: TrustService.BearerAccess?
}
