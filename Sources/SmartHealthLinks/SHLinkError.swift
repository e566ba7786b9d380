/// Why a SMART Health Link, its manifest or one of its files was refused.
///
/// Every case reads as a sentence for a person (``description``); none carries the link's key, a
/// passcode or decrypted content.
public enum SHLinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not a `shlink:/` link (nor a viewer URL whose fragment holds one).
    case notALink
    /// The link is longer than a link can be (``SHLink/maximumLinkLength``).
    case linkTooLong(Int)
    /// The part after `shlink:/` is not base64url.
    case payloadNotBase64URL
    /// The decoded payload is not a JSON object; the reason says where.
    case payloadNotJSON(String)
    /// A required payload member is missing or has the wrong JSON type.
    case payloadMember(String, String)
    /// The manifest URL is not an `https` URL (or `http` on this machine), or is longer than 128
    /// characters.
    case badManifestURL(String)
    /// The key is not 43 base64url characters encoding 32 bytes.
    case badKey
    /// The link has both `U` and `P`, which the specification forbids.
    case directWithPasscode
    /// The label is longer than 80 characters.
    case labelTooLong(Int)
    /// The link's version is not one this library reads.
    case unsupportedVersion(Int)
    /// The manifest answer is not what the specification describes.
    case badManifest(String)
    /// A file is not a JWE compact serialization the specification allows.
    case badFile(String)
    /// A file's JWE uses an algorithm the specification does not allow.
    case unsupportedAlgorithm(alg: String, enc: String)
    /// A file does not decrypt with the link's key: altered, truncated, or for another link.
    case doesNotDecrypt
    /// A file's `zip: DEF` content does not inflate, or would inflate beyond the limit.
    case badCompression(String)

    public var description: String {
        switch self {
        case .notALink:
            "This is not a SMART Health Link: a link starts with \"shlink:/\" (or is a viewer address ending in \"#shlink:/…\")."
        case .linkTooLong(let count):
            "The link is \(count) characters long, more than a SMART Health Link can be (\(SHLink.maximumLinkLength))."
        case .payloadNotBase64URL:
            "The link is damaged: the part after \"shlink:/\" is not base64url text."
        case .payloadNotJSON(let reason):
            "The link is damaged: its content is not a JSON object (\(reason))."
        case .payloadMember(let name, let problem):
            "The link's \"\(name)\" \(problem)."
        case .badManifestURL(let problem):
            "The link's address \(problem)."
        case .badKey:
            "The link's key is not a 256-bit key written as 43 base64url characters."
        case .directWithPasscode:
            "The link is marked both \"U\" (one file fetched directly) and \"P\" (passcode), which the specification forbids."
        case .labelTooLong(let count):
            "The link's label is \(count) characters long; a label has at most 80."
        case .unsupportedVersion(let version):
            "The link is version \(version) of the format; this program reads version 1."
        case .badManifest(let problem):
            "The server's list of shared files is not valid: \(problem)."
        case .badFile(let problem):
            "A shared file is not an encrypted file of a SMART Health Link: \(problem)."
        case .unsupportedAlgorithm(let alg, let enc):
            "A shared file is encrypted with \(alg)/\(enc); SMART Health Links use dir/A256GCM."
        case .doesNotDecrypt:
            "A shared file does not decrypt with the link's key: it was altered or belongs to another link."
        case .badCompression(let problem):
            "A shared file's compressed content \(problem)."
        }
    }
}
