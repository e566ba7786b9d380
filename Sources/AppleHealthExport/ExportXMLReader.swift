import Foundation

/// One element of the export with its attributes and children (a `Record` with its
/// `MetadataEntry` children, a `Workout` with its events and statistics…).
///
/// The attributes are kept as one buffer of their decoded bytes (names and values, entities and
/// character references replaced, white space normalized as XML does) with the ranges of each:
/// no dictionary and no strings are made per element; a value becomes a `String` only when the
/// importer asks for it by name.
struct ExportElement: Sendable {
    /// Where one attribute's name and value are in ``ExportElement/attributeBytes``: the name is
    /// `nameStart..<valueStart`, the value `valueStart..<valueEnd`.
    struct Span: Sendable, Equatable {
        var nameStart: Int32
        var valueStart: Int32
        var valueEnd: Int32
    }

    var name: String
    var line: Int
    var children: [ExportElement] = []
    /// The attributes' decoded names and values, one after the other.
    private(set) var attributeBytes: [UInt8]
    /// The attributes, in the order the start tag gives them.
    private(set) var spans: [Span]

    init(name: String, attributes: [String: String], line: Int, children: [ExportElement] = []) {
        self.name = name
        self.line = line
        self.children = children
        attributeBytes = []
        spans = []
        for (key, value) in attributes {
            let nameStart = Int32(attributeBytes.count)
            attributeBytes.append(contentsOf: key.utf8)
            let valueStart = Int32(attributeBytes.count)
            attributeBytes.append(contentsOf: value.utf8)
            spans.append(Span(nameStart: nameStart, valueStart: valueStart, valueEnd: Int32(attributeBytes.count)))
        }
    }

    /// An element as the reader decoded it.
    init(name: String, line: Int, attributeBytes: [UInt8], spans: [Span]) {
        self.name = name
        self.line = line
        self.attributeBytes = attributeBytes
        self.spans = spans
    }

    /// The value of the attribute named `attribute`, nil when the element has none.
    subscript(_ attribute: String) -> String? {
        guard let span = span(named: attribute) else { return nil }
        return String(decoding: attributeBytes[Int(span.valueStart)..<Int(span.valueEnd)], as: UTF8.self)
    }

    /// Whether the element has an attribute named `attribute` (no string made).
    func has(_ attribute: String) -> Bool {
        span(named: attribute) != nil
    }

    /// Whether the attribute named `attribute` is there and its value equals `value` as strings compare
    /// (byte for byte, without a string, when the value is ASCII).
    func attribute(_ attribute: String, is value: String) -> Bool {
        guard let span = span(named: attribute) else { return false }
        let bytes = attributeBytes[Int(span.valueStart)..<Int(span.valueEnd)]
        if bytes.elementsEqual(value.utf8) { return true }
        // Canonically equivalent text in other bytes (a combining sequence, a singleton like U+212A for K) is equal too.
        return (bytes.contains { $0 >= 0x80 } || value.utf8.contains { $0 >= 0x80 }) && String(decoding: bytes, as: UTF8.self) == value
    }

    /// The span of the attribute named `attribute`.
    func span(named attribute: String) -> Span? {
        var attribute = attribute
        return attribute.withUTF8 { wanted in
            attributeBytes.withUnsafeBufferPointer { bytes in
                for span in spans where Int(span.valueStart - span.nameStart) == wanted.count {
                    let start = Int(span.nameStart)
                    var index = 0
                    while index < wanted.count, bytes[start + index] == wanted[index] { index += 1 }
                    if index == wanted.count { return span }
                }
                return nil
            }
        }
    }

    /// The number of attributes.
    var attributeCount: Int { spans.count }

    /// Calls `body` with the value bytes of the attribute named `attribute` (no string made); nil when there is none.
    func withValueBytes<Result>(_ attribute: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result? {
        guard let span = span(named: attribute) else { return nil }
        return try attributeBytes.withUnsafeBufferPointer { source in
            try body(UnsafeBufferPointer(rebasing: source[Int(span.valueStart)..<Int(span.valueEnd)]))
        }
    }

    /// The name bytes and value bytes of each attribute, in the start tag's order.
    func forEachAttribute(_ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Void) {
        for span in spans {
            body(attributeBytes[Int(span.nameStart)..<Int(span.valueStart)], attributeBytes[Int(span.valueStart)..<Int(span.valueEnd)])
        }
    }

    /// All attributes as strings (for `Me`, whose characteristics are all kept).
    var attributes: [String: String] {
        var dictionary: [String: String] = [:]
        dictionary.reserveCapacity(spans.count)
        forEachAttribute { name, value in
            dictionary[String(decoding: name, as: UTF8.self)] = String(decoding: value, as: UTF8.self)
        }
        return dictionary
    }
}

/// Reads an export.xml as a stream: each child of `HealthData` is handed to a handler once the
/// element is closed, so memory holds one top-level element at a time whatever the file's size.
///
/// The reader is written by hand, byte by byte (no XML package is among the project's allowed
/// dependencies, and Foundation's `XMLParser` built a `[String: String]` and strings for every
/// element, most of a re-import's time): ``PrologStrippedStream`` reads and checks the prolog
/// (XML declaration, comments, processing instructions, the document type declaration with its
/// internal subset: ``ExportProlog``) and hands the bytes from the root element's `<HealthData`
/// on, in chunks of at most ``PrologStrippedStream/chunkSize`` bytes; ``ExportBodyReader`` reads
/// them, holding only the current chunk, the open elements and the top-level element being built.
///
/// Checked as XML 1.0 requires, each failure `malformedXML` unless said otherwise: names (start
/// characters and name characters of XML 1.0, fifth edition), white space between attributes,
/// quoted attribute values without `<`, references (`&lt;` `&gt;` `&amp;` `&apos;` `&quot;`,
/// decimal and hexadecimal character references to characters XML allows; any other entity is
/// undeclared, as exports declare none), duplicate attributes, end tags matching their start
/// tags, comments without `--`, processing instructions (target not `xml`, white space after the
/// target), CDATA sections only inside elements, no `]]>` in text, no text or markup other than
/// comments, processing instructions and white space after the root element, UTF-8 that is well
/// formed and characters XML allows (no control characters but tab, line feed and carriage
/// return, no U+FFFE or U+FFFF), a document type declaration only in the prolog, and the file
/// ending inside markup or before the root element closes. Text and CDATA are checked, not kept
/// (the importer reads attributes only). Attribute values are normalized as XML does for
/// attributes without a declared type: a literal tab, line feed or carriage return (a CR LF
/// pair counting as one) becomes a space, one given by a character reference stays.
///
/// Where it deliberately differs from Foundation's `XMLParser`: names with a colon are refused
/// (exports use no namespaces; `XMLParser` reads declared prefixes), elements nest at most
/// ``maximumDepth`` deep and a start tag holds at most ``maximumAttributes`` attributes
/// (`tooLarge`; libxml2 refuses nesting past 256 too, and has no attribute limit).
///
/// Refused besides: attribute values longer than ``maximumAttributeLength`` and names longer
/// than ``maximumNameLength`` (`attributeTooLong`), top-level elements with more than
/// ``maximumChildren`` descendants (`invalidElement`), and a root element other than
/// `HealthData` (`notAnExport`).
struct ExportXMLReader {
    /// The longest attribute value accepted (Apple's longest, device descriptions, are a few
    /// hundred characters).
    var maximumAttributeLength = 64 * 1024
    /// The most descendants one top-level element may have.
    var maximumChildren = 100_000
    /// The longest element or attribute name, or processing instruction target, accepted.
    var maximumNameLength = 1024
    /// The most attributes one start tag may have.
    var maximumAttributes = 1024
    /// The deepest nesting accepted, the root element counting as 1.
    var maximumDepth = 256

    /// Reads the stream, calling `handler` with each closed child of `HealthData`. A handler
    /// error stops the read and is rethrown.
    func read(_ stream: PrologStrippedStream, handler: (ExportElement) throws -> Void) throws {
        var reader = ExportBodyReader(limits: self, stream: stream)
        try reader.run(handler)
    }
}
