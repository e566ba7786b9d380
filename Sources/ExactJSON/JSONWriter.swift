/// A streaming JSON writer that appends UTF-8 to a byte buffer.
///
/// The writer tracks nesting, so separators are automatic: a value written right after
/// ``key(_:)`` is that member's value, and values written directly inside an array are separated by
/// commas. Generated FHIR encoders drive it member by member:
///
/// ```swift
/// var writer = JSONWriter(style: .pretty)
/// writer.beginObject()
/// writer.key("resourceType")
/// writer.string("Patient")
/// writer.endObject()
/// ```
///
/// Strings are escaped in the minimal RFC 8259 form: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other
/// control characters as `\u00xx`; everything else (including `/` and non-ASCII) is raw UTF-8.
/// Numbers are written verbatim, so the caller is responsible for valid number text.
///
/// Styles: ``Style/compact`` writes no whitespace at all; ``Style/pretty`` writes each member and
/// element on its own line with a two-space indent, `"key": value`, empty containers as `{}` and
/// `[]`, and no trailing newline.
///
/// Calls must be balanced and well-ordered (a key before each member value, no key inside an
/// array); a misordered call sequence produces malformed output but never traps.
public struct JSONWriter: Sendable {
    /// Output layout.
    public enum Style: Sendable {
        /// No whitespace.
        case compact
        /// Two-space indentation, one member or element per line.
        case pretty
    }

    /// The UTF-8 output written so far.
    public private(set) var bytes: [UInt8]

    /// The layout this writer uses.
    public let style: Style

    /// One entry per open container: whether it already has a member or element.
    private var containerHasContent: [Bool] = []
    /// Whether a member name was just written, so the next value needs no separator.
    private var afterKey = false

    /// Creates an empty writer.
    public init(style: Style = .compact) {
        self.style = style
        self.bytes = []
        bytes.reserveCapacity(512)
    }

    // MARK: Containers

    /// Starts an object (`{`).
    public mutating func beginObject() {
        beforeValue()
        bytes.append(UInt8(ascii: "{"))
        containerHasContent.append(false)
    }

    /// Ends the innermost object (`}`).
    public mutating func endObject() {
        endContainer(UInt8(ascii: "}"))
    }

    /// Starts an array (`[`).
    public mutating func beginArray() {
        beforeValue()
        bytes.append(UInt8(ascii: "["))
        containerHasContent.append(false)
    }

    /// Ends the innermost array (`]`).
    public mutating func endArray() {
        endContainer(UInt8(ascii: "]"))
    }

    /// Writes a member name inside an object, preceded by a comma (and, pretty, a newline and
    /// indentation) when needed. The next value written is this member's value.
    public mutating func key(_ key: String) {
        separate()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        if style == .pretty { bytes.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    // MARK: Scalars

    /// Writes `null`.
    public mutating func null() {
        beforeValue()
        appendASCII("null")
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        beforeValue()
        appendASCII(value ? "true" : "false")
    }

    /// Writes number text verbatim (for example `"19.00"`); it must be a valid JSON number.
    public mutating func number(_ lexical: String) {
        beforeValue()
        appendRaw(lexical)
    }

    /// Writes a string, quoted and escaped.
    public mutating func string(_ value: String) {
        beforeValue()
        appendQuoted(value)
    }

    /// Writes a whole JSON tree as one value.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null:
            null()
        case .bool(let bool):
            self.bool(bool)
        case .number(let text):
            number(text)
        case .string(let text):
            string(text)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let object):
            beginObject()
            for member in object.members {
                key(member.key)
                self.value(member.value)
            }
            endObject()
        }
    }

    // MARK: One-shot

    /// Serializes a tree to UTF-8 bytes.
    public static func serialize(_ value: JSONValue, style: Style = .compact) -> [UInt8] {
        var writer = JSONWriter(style: style)
        writer.value(value)
        return writer.bytes
    }

    /// Serializes a tree to a string.
    public static func string(_ value: JSONValue, style: Style = .compact) -> String {
        String(decoding: serialize(value, style: style), as: UTF8.self)
    }

    // MARK: Layout

    /// Writes the separator a value needs at the current position.
    @inline(__always)
    private mutating func beforeValue() {
        if afterKey {
            afterKey = false
            return
        }
        separate()
    }

    /// Writes the comma and (pretty) line break before a member or element of the innermost container.
    @inline(__always)
    private mutating func separate() {
        guard let last = containerHasContent.indices.last else { return }
        if containerHasContent[last] {
            bytes.append(UInt8(ascii: ","))
        } else {
            containerHasContent[last] = true
        }
        if style == .pretty { newline() }
    }

    private mutating func endContainer(_ closer: UInt8) {
        afterKey = false
        if let hadContent = containerHasContent.popLast(), hadContent, style == .pretty {
            newline()
        }
        bytes.append(closer)
    }

    private mutating func newline() {
        bytes.append(0x0A)
        let indent = containerHasContent.count * 2
        if indent > 0 { bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent)) }
    }

    // MARK: Text

    private mutating func appendRaw(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in bytes.append(contentsOf: utf8) }
    }

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in appendEscaped(utf8) }
        bytes.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    @inline(__always)
    private mutating func appendASCII(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        let count = utf8.count
        while index < count {
            let byte = utf8[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                appendASCII("u00")
                bytes.append(Self.hexDigit(byte >> 4))
                bytes.append(Self.hexDigit(byte & 0x0F))
            }
            index += 1
            runStart = index
        }
        if runStart < count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
    }
}
