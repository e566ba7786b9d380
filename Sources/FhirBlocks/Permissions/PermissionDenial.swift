/// Why a grant or an access is refused. Carries identifiers only.
public enum PermissionDenial: Error, Sendable, Hashable, CustomStringConvertible {
    /// The grantor holds no permission (from the selected patient) at all.
    case noPermissionHeld
    /// The requested scope exceeds every permission the grantor holds (resource, access,
    /// confidentiality or sensitivity).
    case scopeEscalation
    /// The requested window is not inside the window of the grantor's permission, or the
    /// permission is not valid at the time of the check.
    case outsideTimeWindow
    /// The window is empty or already over.
    case invalidTimeWindow
    /// The permission (or one above it in the chain) was revoked.
    case revoked(PermissionID)
    /// A grant to oneself.
    case selfGrant
    /// The permission does not exist.
    case unknownPermission(PermissionID)
    /// The chain does not lead back to a wallet's own grant, is inconsistent, or is too deep.
    case brokenChain(PermissionID)
    /// The permission belongs to another grantee or patient than the one checking it.
    case notHolder(PermissionID)
    /// A grantor that is not a wallet passes on a patient's data without naming the patient
    /// (strict mode).
    case patientNotNamed

    /// The protocol error this denial answers with (403, or 404 for an unknown permission).
    public var smoacError: SMOACError {
        switch self {
        case .unknownPermission: .unknownTarget(description)
        case .invalidTimeWindow, .patientNotNamed: .malformedRequest(description)
        default: .notPermitted(description)
        }
    }

    public var description: String {
        switch self {
        case .noPermissionHeld: "the grantor holds no permission to pass on"
        case .scopeEscalation: "the requested scope exceeds what the grantor holds"
        case .outsideTimeWindow: "the requested time window is outside the grantor's permission"
        case .invalidTimeWindow: "the time window is empty or already over"
        case .revoked(let id): "permission \(id) was revoked"
        case .selfGrant: "a csi cannot grant to itself"
        case .unknownPermission(let id): "permission \(id) does not exist"
        case .brokenChain(let id): "permission \(id) has no valid chain to a wallet"
        case .notHolder(let id): "permission \(id) is not held by this client for this patient"
        case .patientNotNamed: "name the patient whose data is passed on (permission.patientCsiGuid)"
        }
    }
}
