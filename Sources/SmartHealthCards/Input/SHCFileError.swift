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

    /// A one-line description.
    public var description: String {
        switch self {
        case .wrongExtension(let found): "health card files must have the extension .smart-health-card, not .\(found)"
        case .writeFailed(let path): "cannot write \(path)"
        case .invalidRid: "rids must be 1-24 base64url characters"
        case .insecureDeepLinkBase: "a deep-link base must be an https URL without a fragment"
        }
    }
}
