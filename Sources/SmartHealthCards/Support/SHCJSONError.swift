/// Why a JSON text could not be parsed. Carries the byte offset, never the text itself.
public struct SHCJSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kind of problem.
    public enum Reason: String, Sendable, Equatable {
        /// The input ended inside a value.
        case unexpectedEnd = "unexpected end of input"
        /// A byte that cannot start or continue a value here.
        case unexpectedCharacter = "unexpected character"
        /// A number that does not follow the JSON grammar.
        case invalidNumber = "invalid number"
        /// An invalid escape sequence or lone surrogate in a string.
        case invalidEscape = "invalid escape sequence"
        /// A control character inside a string.
        case controlCharacter = "unescaped control character in a string"
        /// Bytes that are not valid UTF-8.
        case invalidUTF8 = "invalid UTF-8"
        /// An object has the same member twice.
        case duplicateKey = "duplicate object member"
        /// Arrays and objects nest deeper than the limit.
        case tooDeep = "nesting deeper than the limit"
        /// Non-whitespace after the value.
        case trailingContent = "content after the JSON value"
    }

    /// The kind of problem.
    public var reason: Reason
    /// The byte offset where it was found.
    public var offset: Int

    /// Creates an error.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// A one-line description, e.g. "invalid number at byte 12".
    public var description: String { "\(reason.rawValue) at byte \(offset)" }
}
