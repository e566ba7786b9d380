import ExactJSON

/// Why an input (JWS text, `.smart-health-card` file, `Parameters` response, `shc:/` QR text or
/// deep link) could not be read. Cases carry positions and counts, never the card's content.
///
/// `line` and `card` are 0-based.
public enum SHCInputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input is empty.
    case empty
    /// The input is larger than ``SHCLimits/maxInputBytes``.
    case tooLarge(bytes: Int, limit: Int)
    /// A UTF-8 byte-order mark starts the input (rule 13).
    case byteOrderMark
    /// Whitespace or other characters around the artifact, at this byte offset (rule 13).
    case trailingCharacters(offset: Int)
    /// Not any of the recognised forms.
    case unrecognizedForm
    /// A JSON input that is not valid JSON.
    case invalidJSON(JSONParseError)
    /// A JSON object that is neither a health card file (`verifiableCredential`) nor a FHIR `Parameters`.
    case notAHealthCardDocument
    /// `verifiableCredential` is not an array, or a `Parameters.parameter` is malformed.
    case invalidCredentialList
    /// A health card file with an empty `verifiableCredential` array.
    case noCredentials
    /// A credential entry that is not a string.
    case credentialNotAString(card: Int)
    /// A JWS with base64 `=` padding (rule 13).
    case base64Padding(card: Int)
    /// A credential that is not a compact JWS (`header.payload.signature` in base64url) (rule 13).
    case invalidJWS(card: Int, reason: String)
    /// A QR text line that does not start with `shc:/` (rule 50).
    case missingQRPrefix(line: Int)
    /// A `shc:/` line without digits.
    case emptyNumericData(line: Int)
    /// A character other than a decimal digit in the numeric data, at this offset of the line (rule 47).
    case invalidNumericCharacter(line: Int, offset: Int)
    /// An odd number of digits (rule 47).
    case oddDigitCount(line: Int, count: Int)
    /// A digit pair above 77 (rule 47).
    case digitPairOutOfRange(line: Int, pair: Int, value: Int)
    /// A `shc:/C/N/` chunk header that is not two positive numbers (rule 49).
    case malformedChunkHeader(line: Int)
    /// A chunk index outside `1…N` (rule 49).
    case chunkIndexOutOfRange(line: Int, index: Int, total: Int)
    /// Chunks that disagree about the number of chunks (rule 49).
    case inconsistentChunkTotal(line: Int, expected: Int, found: Int)
    /// Chunks missing from a set (rule 49), 1-based indexes.
    case missingChunks([Int])
    /// Two different chunks with the same index (rule 49).
    case conflictingChunk(index: Int)
    /// A deep link that is not `https://…#{"verifiableCredential":[…]}` (rule 39).
    case invalidDeepLink

    /// A stable machine-readable code, e.g. `input.odd-digit-count`.
    public var code: String {
        switch self {
        case .empty: "input.empty"
        case .tooLarge: "input.too-large"
        case .byteOrderMark: "input.byte-order-mark"
        case .trailingCharacters: "input.trailing-characters"
        case .unrecognizedForm: "input.unrecognized"
        case .invalidJSON: "input.json"
        case .notAHealthCardDocument: "input.not-health-card-document"
        case .invalidCredentialList: "input.credential-list"
        case .noCredentials: "input.no-credentials"
        case .credentialNotAString: "input.credential-not-string"
        case .base64Padding: "input.base64-padding"
        case .invalidJWS: "input.jws"
        case .missingQRPrefix: "input.qr-prefix"
        case .emptyNumericData: "input.qr-empty"
        case .invalidNumericCharacter: "input.qr-character"
        case .oddDigitCount: "input.odd-digit-count"
        case .digitPairOutOfRange: "input.digit-pair-range"
        case .malformedChunkHeader: "input.chunk-header"
        case .chunkIndexOutOfRange: "input.chunk-index"
        case .inconsistentChunkTotal: "input.chunk-total"
        case .missingChunks: "input.chunk-gap"
        case .conflictingChunk: "input.chunk-conflict"
        case .invalidDeepLink: "input.deep-link"
        }
    }

    /// The checklist rule the problem breaks.
    public var rule: Int {
        switch self {
        case .empty, .tooLarge, .unrecognizedForm, .invalidJSON, .notAHealthCardDocument: 31
        case .byteOrderMark, .trailingCharacters, .base64Padding, .invalidJWS: 13
        case .invalidCredentialList, .noCredentials, .credentialNotAString: 38
        case .missingQRPrefix: 50
        case .emptyNumericData, .invalidNumericCharacter, .oddDigitCount, .digitPairOutOfRange: 47
        case .malformedChunkHeader, .chunkIndexOutOfRange, .inconsistentChunkTotal, .missingChunks, .conflictingChunk: 49
        case .invalidDeepLink: 39
        }
    }

    /// A one-line description.
    public var description: String {
        switch self {
        case .empty: "the input is empty"
        case .tooLarge(let bytes, let limit): "the input has \(bytes) bytes, more than the limit of \(limit)"
        case .byteOrderMark: "the input starts with a byte-order mark"
        case .trailingCharacters(let offset): "unexpected whitespace or characters at byte \(offset)"
        case .unrecognizedForm: "not a JWS, health card file, Parameters response, shc:/ QR text or deep link"
        case .invalidJSON(let error): "invalid JSON: \(error)"
        case .notAHealthCardDocument: "JSON that is neither {\"verifiableCredential\":[…]} nor a FHIR Parameters resource"
        case .invalidCredentialList: "verifiableCredential (or Parameters.parameter) is malformed"
        case .noCredentials: "verifiableCredential is empty"
        case .credentialNotAString(let card): "credential \(card) is not a string"
        case .base64Padding(let card): "credential \(card) has base64 '=' padding"
        case .invalidJWS(let card, let reason): "credential \(card) is not a compact JWS: \(reason)"
        case .missingQRPrefix(let line): "line \(line) does not start with shc:/"
        case .emptyNumericData(let line): "line \(line) has no numeric data"
        case .invalidNumericCharacter(let line, let offset): "line \(line) has a non-digit at offset \(offset)"
        case .oddDigitCount(let line, let count): "line \(line) has an odd number of digits (\(count))"
        case .digitPairOutOfRange(let line, let pair, let value): "line \(line): digit pair \(pair) is \(value), above 77"
        case .malformedChunkHeader(let line): "line \(line) has a malformed shc:/C/N/ chunk header"
        case .chunkIndexOutOfRange(let line, let index, let total): "line \(line) is chunk \(index) of \(total)"
        case .inconsistentChunkTotal(let line, let expected, let found): "line \(line) says \(found) chunks, others say \(expected)"
        case .missingChunks(let indexes): "chunks \(indexes.map(String.init).joined(separator: ", ")) are missing"
        case .conflictingChunk(let index): "two different chunks claim index \(index)"
        case .invalidDeepLink: "not an https deep link with a {\"verifiableCredential\":[…]} fragment"
        }
    }
}
