/// Why a health card file or deep link could not be produced.
public enum SHCFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file name does not end with `.smart-health-card` (rule 38); the extension found.
    case wrongExtension(String)
    /// The file could not be written.
    case writeFailed(path: String)
    /// A rid that is not 1-24 base64url characters (rule 40).
    case invalidRid
    /// A deep-link base that is not `https://` or already has a fragment (rule 39).
    case insecureDeepLinkBase
    /// The file exists and is not written over (a private key).
    case alreadyExists(path: String)
    /// A rid the revocation list already lists, or given twice.
    case ridAlreadyListed(String)
    /// A published file (the JWKS or a CRL) exists but cannot be read: it is left as it is rather
    /// than replaced, so no published key or revocation is lost.
    case existingFileUnreadable(path: String)

    /// A one-line description.
    public var description: String {
        switch self {
        case .wrongExtension(let found): "health card files must have the extension .smart-health-card, not .\(found)"
        case .writeFailed(let path): "cannot write \(path)"
        case .invalidRid: "rids must be 1-24 base64url characters"
        case .insecureDeepLinkBase: "a deep-link base must be an https URL without a fragment"
        case .alreadyExists(let path): "\(path) already exists; it is left as it is"
        case .ridAlreadyListed(let rid): "rid \(rid) is already in the revocation list (each rid is listed once)"
        case .existingFileUnreadable(let path): "\(path) exists but is not readable as published: left unchanged"
        }
    }
}
