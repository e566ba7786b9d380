/// Why an issuer's keys or revocation list could not be obtained.
public enum SHCResolverError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The resource (a file path or URL) could not be read or fetched.
    case unreadable(issuer: String, resource: String, reason: String)
    /// The JWKS was obtained but is not a valid JWK set.
    case malformedKeySet(issuer: String, SHCKeyError)
    /// The CRL was obtained but is not a valid revocation list.
    case malformedRevocationList(issuer: String, kid: String, SHCRevocationError)

    /// A one-line description.
    public var description: String {
        switch self {
        case .unreadable(let issuer, let resource, let reason): "cannot read \(resource) for \(issuer): \(reason)"
        case .malformedKeySet(let issuer, let error): "JWKS of \(issuer) is invalid: \(error)"
        case .malformedRevocationList(let issuer, let kid, let error): "CRL of \(issuer) for key \(kid) is invalid: \(error)"
        }
    }
}
