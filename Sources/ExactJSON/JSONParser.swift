/// A strict RFC 8259 JSON parser producing ``JSONValue`` trees.
///
/// - Numbers keep their exact lexical text (``JSONValue/number(_:)``).
/// - Object members keep their order; a duplicate member name is an error (FHIR forbids them).
/// - No comments, trailing commas, leading zeros, `NaN`/`Infinity` or single quotes. Whitespace is
///   only space, tab, CR and LF. A UTF-8 byte-order mark at the very start is skipped (unless
///   `allowsByteOrderMark` is false).
/// - The input must be valid UTF-8; `\u` escapes must not be lone surrogates.
/// - Any value may be the top-level value.
/// - Arrays and objects may nest at most `maximumDepth` levels; deeper input throws
///   ``JSONParseError/Reason/tooDeep(_:)``. The parser itself does not recurse (it keeps an explicit
///   stack of open containers), so its thread-stack use is independent of nesting; the limit
///   protects code that later walks the tree recursively (equality, the writer, deallocation).
public enum JSONParser {
    /// Parses a complete JSON document from raw UTF-8 bytes.
    /// - Parameters:
    ///   - bytes: The UTF-8 encoded document.
    ///   - maximumDepth: The deepest nesting of arrays and objects accepted.
    /// - Throws: ``JSONParseError`` with the position and reason of the first problem.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        try parse(Array(bytes), maximumDepth: maximumDepth)
    }

    /// Parses a complete JSON document from UTF-8 bytes.
    /// - Parameters:
    ///   - bytes: The UTF-8 encoded document.
    ///   - maximumDepth: The deepest nesting of arrays and objects accepted.
    ///   - allowsByteOrderMark: Whether a byte-order mark at the very start is skipped (the
    ///     default) or rejected as an unexpected byte.
    /// - Throws: ``JSONParseError`` with the position and reason of the first problem.
    public static func parse(_ bytes: [UInt8], maximumDepth: Int = 512, allowsByteOrderMark: Bool = true) throws(JSONParseError) -> JSONValue {
        try JSONTape(bytes, maximumDepth: maximumDepth, allowsByteOrderMark: allowsByteOrderMark).value(at: 0)
    }

    /// Parses a complete JSON document from a string (its UTF-8 form is parsed).
    /// - Throws: ``JSONParseError`` with the position and reason of the first problem; offsets are
    ///   UTF-8 byte offsets into the string.
    public static func parse(_ text: String, maximumDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maximumDepth: maximumDepth)
    }
}
