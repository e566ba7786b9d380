/// What an audit entry records. The raw value is the subtype code in the FhirBlocks code
/// system (`urn:fhirblocks:audit-event`).
public enum AuditEventType: String, Sendable, Hashable, CaseIterable {
    /// `csi/requestCsiRegistration`.
    case registration = "csi-registration"
    /// `csi/fetchPublicClaims`.
    case publicClaimsRead = "public-claims-read"
    /// `permission/writePermission` (one entry per permission written).
    case permissionGrant = "permission-grant"
    /// `permission/deletePermission`.
    case permissionRevoke = "permission-revoke"
    /// A permission listing.
    case permissionsListed = "permissions-listed"
    /// `vaca/auth` issued a code.
    case codeIssued = "code-issued"
    /// `vaca/access` or the token endpoint issued a token.
    case tokenIssued = "token-issued"
    /// Token introspection.
    case tokenIntrospected = "token-introspected"
    /// A FHIR interaction under `/fhir`.
    case fhirAccess = "fhir-access"
    /// A refused signature, assertion or token.
    case authenticationFailure = "authentication-failure"
    /// RFC 7591 dynamic registration of a SMART public client.
    case clientRegistration = "client-registration"
    /// A SMART `/authorize` request waiting for the patient's wallet.
    case authorizationRequested = "authorization-requested"
    /// The wallet approved or declined a SMART authorization.
    case authorizationDecided = "authorization-decided"
    /// A refresh token was exchanged (and rotated).
    case tokenRefreshed = "token-refreshed"
    /// A SMART Health Link hosted for the wallet was asked for (its manifest, or a `U` link's
    /// file): the agent is the recipient the request named, the reason what was refused.
    case sharedLinkAccess = "shared-link-access"

    /// The five `AuditEvent.action` codes.
    public static let actions: Set<String> = ["C", "R", "U", "D", "E"]

    /// The BALP/R4 `AuditEvent.action` of an event of this type: C, R, U, D or E. A FHIR
    /// access is `R` (read) here; its entry says `C` or `U` for a write.
    public var action: String {
        switch self {
        case .registration, .permissionGrant, .codeIssued, .tokenIssued, .clientRegistration, .authorizationRequested, .tokenRefreshed: "C"
        case .authorizationDecided: "U"
        case .publicClaimsRead, .permissionsListed, .fhirAccess, .sharedLinkAccess: "R"
        case .permissionRevoke: "D"
        case .tokenIntrospected, .authenticationFailure: "E"
        }
    }
}
