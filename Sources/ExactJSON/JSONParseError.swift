/// A JSON document that could not be parsed.
///
/// The error says where the problem is and what kind of problem it is, but never repeats text from
/// the document's strings (which may be patient data). Only a duplicate member name is named, since
/// keys are element names rather than content.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The input ended in the middle of a value (or was empty).
        case unexpectedEnd
        /// A byte that cannot start or continue the construct being read, outside any string.
        case unexpectedByte(UInt8)
        /// A number that does not follow the RFC 8259 grammar (leading zero, missing digits, …).
        case invalidNumber
        /// A backslash escape other than `\" \\ \/ \b \f \n \r \t \uXXXX`.
        case invalidEscape
        /// Invalid UTF-8 in a string, or a `\u` escape that is a lone surrogate.
        case invalidUnicode
        /// An unescaped control character (U+0000 to U+001F) inside a string.
        case controlCharacterInString
        /// Arrays and objects nest deeper than the given maximum depth.
        case tooDeep(Int)
        /// Something other than whitespace follows the top-level value.
        case trailingContent
        /// An object has two members with this name (FHIR forbids it).
        case duplicateKey(String)
    }

    /// Zero-based byte offset of the problem from the start of the input (a byte-order mark counts).
    public var offset: Int
    /// One-based line number. Lines end at LF, CR LF or a lone CR.
    public var line: Int
    /// One-based column on that line, counted in Unicode scalars (UTF-8 continuation bytes do not count).
    public var column: Int
    /// What went wrong.
    public var reason: Reason

    /// Creates an error for the given position.
    public init(offset: Int, line: Int, column: Int, reason: Reason) {
        self.offset = offset
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// The same error with nothing taken from the document: a duplicate member's name is
    /// removed (``Reason/duplicateKey(_:)`` with an empty name, described as `duplicate key`).
    /// For errors of documents whose every string, names included, may be personal data, such as
    /// a health card's payload.
    public var redacted: JSONParseError {
        guard case .duplicateKey = reason else { return self }
        return JSONParseError(offset: offset, line: line, column: column, reason: .duplicateKey(""))
    }

    /// For example `JSON error at line 3, column 7: unexpected character '}'`.
    public var description: String {
        "JSON error at line \(line), column \(column): \(reasonText)"
    }

    private var reasonText: String {
        switch reason {
        case .unexpectedEnd:
            return "unexpected end of input"
        case .unexpectedByte(let byte):
            if byte >= 0x21 && byte < 0x7F {
                return "unexpected character '\(Character(Unicode.Scalar(byte)))'"
            }
            return "unexpected byte 0x\(Self.hex(byte))"
        case .invalidNumber:
            return "invalid number"
        case .invalidEscape:
            return "invalid escape sequence in string"
        case .invalidUnicode:
            return "invalid Unicode in string (bad UTF-8 or lone surrogate)"
        case .controlCharacterInString:
            return "unescaped control character in string"
        case .tooDeep(let maximum):
            return "nesting deeper than \(maximum) levels"
        case .trailingContent:
            return "unexpected content after the top-level value"
        case .duplicateKey(let key):
            return key.isEmpty ? "duplicate key" : "duplicate key \"\(key)\""
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
