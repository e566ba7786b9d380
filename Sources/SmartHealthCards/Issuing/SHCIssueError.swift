import ExactJSON

/// Why a card, key or revocation update could not be issued.
public enum SHCIssueError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `iss` is not an `https` URL without a trailing `/` (rule 6).
    case invalidIssuer
    /// A rid that is not 1-24 base64url characters (rule 40).
    case invalidRid
    /// `exp` is not after `nbf` (rule 17).
    case expirationNotAfterIssuance
    /// The bundle is not a FHIR `Bundle` JSON object.
    case notABundle(String)
    /// The bundle JSON could not be parsed.
    case invalidBundleJSON(JSONParseError)
    /// A `Reference.reference` that matches no entry (path to it, structure only).
    case unresolvableReference(path: String)
    /// A JWS character outside the `-`…`z` range the numeric QR encoding covers.
    case notEncodableAsNumeric
    /// The JWS is too long for one QR code and legacy chunking was not requested.
    case tooLongForSingleQR(length: Int, maximum: Int)
    /// The cryptographic library could not produce a signature.
    case signingFailed
    /// A chunk count that is not between 1 and 99, or too small for the JWS.
    case invalidChunkCount(Int)
    /// A rid the revocation list already lists, or given twice (a CRL lists each rid once, rule 43).
    case ridAlreadyListed(String)

    /// A one-line description.
    public var description: String {
        switch self {
        case .invalidIssuer: "iss must be an https URL without a trailing slash"
        case .invalidRid: "rid must be 1-24 base64url characters"
        case .expirationNotAfterIssuance: "exp must be after nbf"
        case .notABundle(let reason): "not a FHIR Bundle: \(reason)"
        case .invalidBundleJSON(let error): "bundle is not JSON: \(error)"
        case .unresolvableReference(let path): "reference at \(path) matches no entry of the bundle"
        case .notEncodableAsNumeric: "the JWS has characters outside '-'...'z'"
        case .tooLongForSingleQR(let length, let maximum): "JWS of \(length) characters exceeds the single-QR maximum of \(maximum)"
        case .signingFailed: "signing failed"
        case .invalidChunkCount(let count): "invalid chunk count \(count)"
        case .ridAlreadyListed(let rid): "rid \(rid) is already in the revocation list (each rid is listed once)"
        }
    }
}
