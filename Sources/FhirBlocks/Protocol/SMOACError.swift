/// Every error a SMOAC or VACA endpoint answers with, carrying the HTTP status of the doc's
/// §1.10 error model (OAuth endpoints use the RFC 6749 §5.2 codes).
///
/// Descriptions name fields and rules, never field values, so an error can be logged and
/// returned without leaking patient data.
public enum SMOACError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 400: the body is not JSON, a member is missing or has the wrong type or syntax.
    case malformedRequest(String)
    /// 401: the signature does not verify against the registered (or, at registration, the
    /// presented) key.
    case badSignature(String)
    /// 401: the caller's csiGuid is not registered.
    case unknownCsi
    /// 401: `dateTime` is further than the window from the server's clock (signed seconds,
    /// positive when the request is in the future).
    case staleDateTime(skewSeconds: Int64)
    /// 401: the nonce was already used by this csiGuid.
    case replayedNonce
    /// 403: the caller may not do this (no permission, escalation, outside the time window, revoked).
    case notPermitted(String)
    /// 404: the target (csiGuid, permission, code) does not exist.
    case unknownTarget(String)
    /// 409: the csiGuid is already registered.
    case alreadyRegistered
    /// 401: RFC 6749 `invalid_client` (client assertion failed).
    case invalidClient(String)
    /// 400: RFC 6749 `invalid_grant` (bad, expired or reused code or assertion grant).
    case invalidGrant(String)
    /// 400: RFC 6749 `invalid_scope` (nothing of the requested scope can be granted).
    case invalidScope(String)
    /// 400: RFC 6749 `unsupported_grant_type`.
    case unsupportedGrantType
    /// 403: RFC 6749 `access_denied`.
    case accessDenied(String)
    /// 500: a storage adapter failed.
    case storageFailure(String)
    /// 429: too many requests from this address or identity; retry after the given seconds.
    case rateLimited(retryAfterSeconds: Int)

    /// The HTTP status code.
    public var httpStatus: Int {
        switch self {
        case .malformedRequest, .invalidGrant, .invalidScope, .unsupportedGrantType: 400
        case .badSignature, .unknownCsi, .staleDateTime, .replayedNonce, .invalidClient: 401
        case .notPermitted, .accessDenied: 403
        case .unknownTarget: 404
        case .alreadyRegistered: 409
        case .storageFailure: 500
        case .rateLimited: 429
        }
    }

    /// The `error` member of the body.
    public var errorCode: String {
        switch self {
        case .malformedRequest: "invalid_request"
        case .badSignature: "invalid_signature"
        case .unknownCsi: "unknown_csi"
        case .staleDateTime: "stale_date_time"
        case .replayedNonce: "replayed_nonce"
        case .notPermitted: "not_permitted"
        case .unknownTarget: "not_found"
        case .alreadyRegistered: "already_registered"
        case .invalidClient: "invalid_client"
        case .invalidGrant: "invalid_grant"
        case .invalidScope: "invalid_scope"
        case .unsupportedGrantType: "unsupported_grant_type"
        case .accessDenied: "access_denied"
        case .storageFailure: "server_error"
        case .rateLimited: "too_many_requests"
        }
    }

    /// The `error_description` member of the body.
    public var errorDescription: String {
        switch self {
        case .malformedRequest(let detail), .badSignature(let detail), .notPermitted(let detail),
             .unknownTarget(let detail), .invalidClient(let detail), .invalidGrant(let detail),
             .invalidScope(let detail), .accessDenied(let detail), .storageFailure(let detail):
            detail
        case .unknownCsi: "the csiGuid is not registered"
        case .staleDateTime(let skew): "dateTime is \(skew < 0 ? -skew : skew) s \(skew < 0 ? "behind" : "ahead of") the server clock"
        case .replayedNonce: "the nonce was already used"
        case .alreadyRegistered: "the csiGuid is already registered"
        case .unsupportedGrantType: "unsupported grant_type"
        case .rateLimited(let seconds): "too many requests; retry in \(seconds) s"
        }
    }

    /// The JSON error body `{"error", "error_description"}`.
    public var body: ErrorBody { ErrorBody(error: errorCode, errorDescription: errorDescription) }

    /// For example `401 invalid_signature: …`.
    public var description: String { "\(httpStatus) \(errorCode): \(errorDescription)" }
}
