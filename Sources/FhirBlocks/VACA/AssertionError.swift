/// Why a JWT assertion is refused. Never contains claim values.
public enum AssertionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Longer than the limit.
    case tooLong
    /// Not three dot-separated parts of base64 JSON (details in the text).
    case malformed(String)
    /// `alg` is not `ES256` (`none`, `HS256`, `RS256`, … are refused).
    case unsupportedAlgorithm(String)
    /// The signature does not verify with the issuer's key.
    case badSignature
    /// A required claim is missing.
    case missingClaim(String)
    /// A claim has the wrong type or form.
    case invalidClaim(String)
    /// `kid` names neither the issuer nor its key thumbprint.
    case wrongKeyID
    /// `sub` is not the issuer.
    case subjectMismatch
    /// `aud` does not name this endpoint.
    case wrongAudience
    /// `exp` has passed.
    case expired
    /// `nbf` is in the future.
    case notYetValid
    /// `iat` is in the future.
    case issuedInFuture
    /// `exp` is further than the maximum lifetime after `iat` or after now.
    case lifetimeTooLong
    /// The `jti` was used before by this issuer.
    case replayed
    /// `sta` does not match the device the csi registered.
    case deviceMismatch
    /// The replay store failed.
    case storage(String)

    /// The protocol error: `invalid_grant` for an authorization grant (`vaca/auth`),
    /// `invalid_client` for client authentication (`vaca/access`, token endpoint).
    public func smoacError(purpose: AssertionPurpose) -> SMOACError {
        if case .storage(let reason) = self { return .storageFailure(reason) }
        switch purpose {
        case .authorizationGrant: return .invalidGrant("assertion: \(description)")
        case .clientAuthentication: return .invalidClient("client assertion: \(description)")
        }
    }

    public var description: String {
        switch self {
        case .tooLong: "too long"
        case .malformed(let detail): "malformed: \(detail)"
        case .unsupportedAlgorithm(let alg): "unsupported alg \"\(alg.prefix(16))\" (only ES256)"
        case .badSignature: "signature does not verify"
        case .missingClaim(let name): "claim \"\(name)\" is missing"
        case .invalidClaim(let name): "claim \"\(name)\" is invalid"
        case .wrongKeyID: "kid does not name the issuer's key"
        case .subjectMismatch: "sub must equal iss"
        case .wrongAudience: "aud does not name this endpoint"
        case .expired: "expired"
        case .notYetValid: "not yet valid (nbf)"
        case .issuedInFuture: "iat is in the future"
        case .lifetimeTooLong: "exp is too far in the future"
        case .replayed: "jti was already used"
        case .deviceMismatch: "sta does not match the registered device"
        case .storage(let reason): "replay store failed: \(reason)"
        }
    }
}
