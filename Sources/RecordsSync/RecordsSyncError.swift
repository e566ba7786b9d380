/// Why connecting to or syncing with a SMART on FHIR server failed. Messages name endpoints,
/// statuses and OAuth error codes, never the person's data or tokens.
public enum RecordsSyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server's SMART configuration could not be found or read.
    case discovery(String)
    /// The server does not offer what the flow needs (a registration endpoint, PKCE S256…).
    case unsupported(String)
    /// Dynamic client registration was refused.
    case registration(String)
    /// The authorization server redirected back with an OAuth error (`access_denied` when the
    /// person declined).
    case authorizationRefused(error: String, description: String?)
    /// The redirect came back without a code, with another `state`, or never came.
    case callback(String)
    /// The token endpoint refused a code or a refresh token.
    case tokenRefused(error: String, description: String?)
    /// The connection's tokens no longer work (revoked, expired, refresh refused): connect again.
    case connectionMustBeRenewed(String)
    /// A FHIR request failed (status and what was asked).
    case fhir(String)
    /// An answer could not be read.
    case malformedResponse(String)
    /// No connection of that name, or several when one must be named.
    case connection(String)
    /// The network failed.
    case transport(String)
    /// The connection's patient is not the store's owner (both described by name and birth
    /// date; the person's own data, shown to that person).
    case otherPerson(patient: String, owner: String)
    /// The connection's Patient could not be read (why), so whether the records are the store
    /// owner's cannot be checked.
    case patientUnreadable(String, owner: String)

    public var description: String {
        switch self {
        case .discovery(let text): "SMART discovery failed: \(text)"
        case .unsupported(let text): "the server does not support \(text)"
        case .registration(let text): "client registration failed: \(text)"
        case .authorizationRefused(let error, let text): "the authorization was refused: \(error)\(text.map { " (\($0))" } ?? "")"
        case .callback(let text): "the redirect back failed: \(text)"
        case .tokenRefused(let error, let text): "the token endpoint refused: \(error)\(text.map { " (\($0))" } ?? "")"
        case .connectionMustBeRenewed(let text): "the connection must be renewed (run `health records connect` again): \(text)"
        case .fhir(let text): "FHIR request failed: \(text)"
        case .malformedResponse(let text): "unreadable answer: \(text)"
        case .connection(let text): text
        case .transport(let text): "network error: \(text)"
        case .otherPerson(let patient, let owner):
            "this connection's records are of \(patient), but this store belongs to \(owner): nothing was synced"
        case .patientUnreadable(let reason, let owner):
            "the connection's Patient could not be read (\(reason)), so whether its records are of \(owner), who this store belongs to, "
                + "cannot be checked: nothing was synced"
        }
    }
}
