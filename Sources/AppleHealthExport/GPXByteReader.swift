import CommonSupport
import Foundation
import OpenHealthKit

/// The reader behind ``GPXRouteReader``: reads a whole GPX file, byte by byte, and builds the
/// locations of its track points as it goes.
///
/// Written by hand because no package the project may use parses XML faster than Foundation's
/// `XMLParser`, which made strings and an attribute dictionary for every element and was the
/// largest single cost of a first import (1.23 G of about 10.5 G instructions on a 12-day
/// export). It shares ``ExportBodyReader``'s pieces: the XML name and character classes, the
/// UTF-8 check, the predefined entities and the UTF-8 writer.
///
/// It reads what the Health app writes and whatever else well-formed XML allows around it: a
/// UTF-8 byte order mark, an XML declaration (version, an encoding that is UTF-8, standalone),
/// comments, processing instructions, CDATA sections, references (the five predefined entities,
/// decimal and hexadecimal character references to characters XML allows), attributes in any
/// order with either quote and white space around `=`, names with colons (namespaces are not
/// processed, as `XMLParser` was told), and CR LF or CR line ends (read as LF, as XML does).
/// Refused as `malformedXML`: anything else XML does not allow (mismatched or missing end tags,
/// duplicate attributes, undeclared entities, `<` in attribute values, `]]>` in text, `--` in
/// comments, characters XML does not allow, UTF-8 that is not well formed, text or markup after
/// the root element other than comments, instructions and white space), an encoding other than
/// UTF-8, and the file ending anywhere before the root element's end tag.
///
/// The events are the ones `XMLParser` gave its delegate, in the same order, and handled the
/// same way (``GPXRouteReader`` lists what is refused). Where it deliberately differs from the
/// `XMLParser` path: a CDATA section inside a point's field is that field's text (XML's meaning;
/// `XMLParser` handed it to a callback the reader did not implement, so the field read as empty
/// and the point as invalid); a start tag holds at most ``maximumAttributes`` attributes and
/// at most as many namespace prefixes are declared at once (`tooLarge`), so the checks of
/// duplicates and prefixes stay linear; a UTF-16 file or one declaring another
/// encoding is refused rather than transcoded (Apple writes UTF-8).
///
/// Every loop consumes a byte or ends, and every token ends at the end of the input: the reader
/// cannot loop. ``work`` counts the bytes and comparisons it spent, for the tests to check the
/// cost is linear in the file's size.
struct GPXByteReader {
    static let maximumText = 256
    static let maximumDepth = 32
    static let maximumAttributes = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private let maximumPoints: Int
    private var position = 0
    /// The line the reader is on.
    private(set) var line = 1
    /// Bytes read and comparisons made (the duplicate-attribute check, end tags against start tags).
    private(set) var work = 0
    /// Where each open element's name starts and ends in ``bytes``, root first.
    private var openNames: [(start: Int, end: Int)] = []
    /// How many namespace prefixes each open element declares (`xmlns:p`), root first, and the
    /// prefixes declared by the open elements, outermost first.
    private var openDeclarations: [Int] = []
    private var prefixes: [(start: Int, end: Int)] = []
    /// Whether the last name read holds a colon.
    private var sawColon = false
    private var closedRoot = false
    private(set) var locations: [CLLocation] = []
    /// The point being read, between its start and end tags.
    private var point: PointValues?
    /// Whether the text read goes to ``text``: inside a field of a point, as the delegate of
    /// `XMLParser` collected it.
    private var collecting = false
    private var text: [UInt8] = []
    /// The field's text while it is one run of plain bytes, read in place: where it is in ``bytes``
    /// (``text`` is then empty; the run is copied into it when more text follows).
    private var pending: Range<Int>?
    /// The names of the start tag being read's attributes and their hashes, for the duplicate check.
    private var attributeNames: [(start: Int, end: Int, hash: UInt64, colon: Bool)] = []
    /// An attribute value with references or line ends, decoded.
    private var scratch: [UInt8] = []

    private init(bytes: UnsafeBufferPointer<UInt8>, maximumPoints: Int) {
        self.bytes = bytes
        self.maximumPoints = maximumPoints
        text.reserveCapacity(Self.maximumText + 8)
        attributeNames.reserveCapacity(8)
        openNames.reserveCapacity(8)
    }

    /// The locations of `data`'s track points, or the reason it is refused, and the work spent.
    static func read(_ data: Data, maximumPoints: Int) -> (result: Result<[CLLocation], AppleHealthExportError>, work: Int) {
        data.withUnsafeBytes { raw in
            var reader = GPXByteReader(bytes: raw.bindMemory(to: UInt8.self), maximumPoints: maximumPoints)
            do throws(AppleHealthExportError) {
                try reader.document()
                return (.success(reader.locations), reader.work)
            } catch {
                return (.failure(error), reader.work)
            }
        }
    }

    // MARK: Input

    private func malformed(_ detail: String) -> AppleHealthExportError {
        AppleHealthExportError(.malformedXML, line: line, detail)
    }

    private func truncated(_ inside: String) -> AppleHealthExportError {
        AppleHealthExportError(.malformedXML, line: line, "the GPX file ends inside \(inside): it is not well-formed or ends early")
    }

    /// Whether the bytes at the position are `literal` (not consumed).
    private func sees(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        let start = literal.utf8Start
        for index in 0..<count where bytes[position + index] != start[index] { return false }
        return true
    }

    /// Whether the bytes at the position are `literal`, consumed if so.
    private mutating func take(_ literal: StaticString) -> Bool {
        guard sees(literal) else { return false }
        position += literal.utf8CodeUnitCount
        return true
    }

    /// Skips white space, counting lines; whether there was any.
    private mutating func skipSpace() -> Bool {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            guard ExportBodyReader.isSpace(byte) else { break }
            if byte == 0x0A || (byte == 0x0D && (position + 1 == bytes.count || bytes[position + 1] != 0x0A)) { line += 1 }
            position += 1
        }
        work += position - start
        return position > start
    }

    /// The UTF-8 sequence at the position (a lead byte of 0x80 or more), checked; its scalar and length (not consumed).
    private func scalar() throws(AppleHealthExportError) -> (value: UInt32, length: Int) {
        switch ExportBodyReader.utf8Scalar(in: bytes, at: position) {
        case .scalar(let value, let length): return (value, length)
        case .endsEarly: throw truncated("a character")
        case .notWellFormed: throw malformed("the GPX file is not well-formed UTF-8")
        case .notAllowed: throw malformed("the GPX file holds a character XML does not allow")
        }
    }

    /// Consumes one character of a comment, instruction or CDATA section (checked), appending
    /// it to ``text`` when `keep` (line ends as LF).
    private mutating func character(keep: Bool) throws(AppleHealthExportError) {
        let byte = bytes[position]
        work += 1
        if byte >= 0x20 && byte < 0x80 || byte == 0x09 {
            position += 1
            if keep { try appendText(byte) }
        } else if byte == 0x0A || byte == 0x0D {
            position += 1
            if byte == 0x0D, position < bytes.count, bytes[position] == 0x0A { position += 1 }
            line += 1
            if keep { try appendText(0x0A) }
        } else if byte >= 0x80 {
            let length = try scalar().length
            if keep { try appendText(position..<position + length) }
            position += length
        } else {
            throw malformed("the GPX file holds a character XML does not allow")
        }
    }

    // MARK: Names and references

    /// Reads a name at the position (XML 1.0's, colons allowed); where it starts and ends.
    /// ``sawColon`` tells whether it holds a colon.
    private mutating func name() throws(AppleHealthExportError) -> (start: Int, end: Int) {
        let start = position
        let bytes = self.bytes
        var index = start
        var colon = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                if byte == UInt8(ascii: ":") {
                    colon = true
                } else {
                    guard index == start ? ExportBodyReader.isASCIINameStart(byte) : ExportBodyReader.isASCIINameCharacter(byte) else { break }
                }
                index += 1
            } else {
                position = index
                let (value, length) = try scalar()
                guard index == start ? ExportBodyReader.isNameStart(value) : ExportBodyReader.isNameCharacter(value) else { break }
                index += length
            }
        }
        position = index
        sawColon = colon
        work += position - start
        guard position > start else {
            if position == bytes.count { throw truncated("a name") }
            throw malformed("a name starts with a character names cannot start with")
        }
        guard position < bytes.count else { throw truncated("a tag") }
        return (start, position)
    }

    /// Whether the name at `name` is `literal`.
    @inline(__always)
    private func isName(_ name: (start: Int, end: Int), _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard name.end - name.start == count else { return false }
        let start = literal.utf8Start
        for index in 0..<count where bytes[name.start + index] != start[index] { return false }
        return true
    }

    /// The bytes of a name of at most 8 bytes as one word, the first byte lowest (``GPXNames``).
    @inline(__always)
    private func packed(_ name: (start: Int, end: Int)) -> UInt64 {
        var value: UInt64 = 0
        var index = name.end
        while index > name.start {
            index -= 1
            value = value << 8 | UInt64(bytes[index])
        }
        return value
    }

    /// Whether `name` is the name whose bytes `word` packs (``GPXNames``).
    @inline(__always)
    private func isName(_ name: (start: Int, end: Int), word: UInt64, count: Int) -> Bool {
        name.end - name.start == count && packed(name) == word
    }

    /// The reference at the position (`&` consumed): the character it stands for.
    private mutating func reference() throws(AppleHealthExportError) -> UInt32 {
        let start = position
        defer { work += position - start }
        if take("#") {
            let radix: UInt32 = take("x") ? 16 : 10
            var value: UInt32 = 0
            var digits = 0
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: ";") {
                    position += 1
                    guard digits > 0, ExportBodyReader.isCharacter(value) else { throw malformed("a character reference is not to a character XML allows") }
                    return value
                }
                guard let digit = ExportBodyReader.referenceDigit(byte, radix: radix) else {
                    throw malformed("a character reference is not well-formed")
                }
                value = value * radix + digit
                digits += 1
                position += 1
                guard value <= 0x10FFFF else { throw malformed("a character reference is not to a character XML allows") }
            }
            throw truncated("a character reference")
        }
        while position < bytes.count, bytes[position] != UInt8(ascii: ";"), position - start < 5 { position += 1 }
        guard position < bytes.count else { throw truncated("a reference") }
        guard bytes[position] == UInt8(ascii: ";"),
              let value = ExportBodyReader.predefinedEntity(UnsafeBufferPointer(rebasing: bytes[start..<position])) else {
            throw malformed("a reference is not well-formed or names an undeclared entity (routes declare none)")
        }
        position += 1
        return value
    }

    // MARK: Document

    private mutating func document() throws(AppleHealthExportError) {
        try prolog()
        try startTag()
        while !closedRoot {
            try content()
            // At `<`.
            position += 1
            guard position < bytes.count else { throw truncated("a tag") }
            switch bytes[position] {
            case UInt8(ascii: "/"):
                position += 1
                try endTag()
            case UInt8(ascii: "?"):
                position += 1
                try instruction()
            case UInt8(ascii: "!"):
                if take("!--") {
                    try comment()
                } else if take("![CDATA[") {
                    try cdata()
                } else {
                    position -= 1
                    try declaration()
                }
            default:
                try startTag()
            }
        }
        // After the root: comments, instructions and white space only.
        while true {
            _ = skipSpace()
            guard position < bytes.count else { break }
            if take("<?") {
                try instruction()
            } else if take("<!--") {
                try comment()
            } else if sees("<!") {
                try declaration()
            } else {
                throw malformed("something other than comments and processing instructions follows the gpx element")
            }
        }
        guard !locations.isEmpty else { throw AppleHealthExportError(.invalidElement, "the GPX file has no track point") }
    }

    /// `<!` (at the position) that is neither a comment nor a CDATA section: a document type or
    /// entity declaration is refused as such, anything else is not well-formed.
    private func declaration() throws(AppleHealthExportError) -> Never {
        if sees("<!DOCTYPE") || sees("<!ENTITY") {
            throw AppleHealthExportError(.entityDeclaration, "the GPX file declares a document type, which routes never do")
        }
        if bytes.count - position < 9 { throw truncated("markup") }
        throw malformed("markup that is neither an element, a comment, a CDATA section nor an instruction")
    }

    /// A byte order mark, the XML declaration, comments, instructions and white space before
    /// the root element, up to the root's `<` (consumed).
    private mutating func prolog() throws(AppleHealthExportError) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        if sees("<?xml"), bytes.count - position > 5, ExportBodyReader.isSpace(bytes[position + 5]) {
            position += 5
            try xmlDeclaration()
        }
        while true {
            _ = skipSpace()
            if take("<?") {
                try instruction()
            } else if take("<!--") {
                try comment()
            } else if sees("<!") {
                try declaration()
            } else if position < bytes.count, bytes[position] == UInt8(ascii: "<") {
                position += 1
                return
            } else {
                if position == bytes.count { throw truncated("the prolog, before any element") }
                throw malformed("the GPX file does not start with an element")
            }
        }
    }

    /// `<?xml version="1.x" encoding="UTF-8" standalone="yes|no"?>` (`<?xml` consumed), in that
    /// order, the encoding and standalone optional; an encoding other than UTF-8 is refused.
    private mutating func xmlDeclaration() throws(AppleHealthExportError) {
        var spaced = skipSpace()
        var first = true
        for pseudo: StaticString in ["version", "encoding", "standalone"] {
            guard spaced, take(pseudo) else {
                if first { throw malformed("the XML declaration has no version") }
                continue
            }
            _ = skipSpace()
            guard take("=") else { throw malformed("the XML declaration is not well-formed") }
            _ = skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                throw malformed("the XML declaration is not well-formed")
            }
            let quote = bytes[position]
            position += 1
            let start = position
            while position < bytes.count, bytes[position] != quote, position - start < 64 { position += 1 }
            guard position < bytes.count, bytes[position] == quote else { throw malformed("the XML declaration is not well-formed") }
            let raw = bytes[start..<position]
            // Encoding names are case-insensitive; `standalone` is exactly `yes` or `no`.
            let value = raw.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
            position += 1
            let valid: Bool
            switch pseudo.utf8CodeUnitCount {
            case 7: valid = value.count > 2 && value.starts(with: "1.".utf8) && value.dropFirst(2).allSatisfy { (0x30...0x39).contains($0) }
            case 8: valid = value.elementsEqual("UTF-8".utf8) || value.elementsEqual("UTF8".utf8)
            default: valid = raw.elementsEqual("yes".utf8) || raw.elementsEqual("no".utf8)
            }
            guard valid else {
                if pseudo.utf8CodeUnitCount == 8 { throw malformed("the GPX file declares an encoding other than UTF-8") }
                throw malformed("the XML declaration is not well-formed")
            }
            first = false
            spaced = skipSpace()
        }
        guard take("?>") else { throw malformed("the XML declaration is not well-formed") }
    }

    /// Text inside an element, up to the next `<`: references and characters checked, and kept
    /// in ``text`` while ``collecting`` (references replaced, line ends as LF).
    private mutating func content() throws(AppleHealthExportError) {
        while true {
            // A run of plain bytes at once.
            let start = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "]") || byte < 0x20 || byte >= 0x80 { break }
                position += 1
            }
            work += position - start
            if collecting, position > start {
                if text.isEmpty, pending == nil, position < bytes.count, bytes[position] == UInt8(ascii: "<") {
                    // The whole text so far, read in place (copied only if more text follows).
                    guard position - start <= Self.maximumText else {
                        throw AppleHealthExportError(.tooLarge, line: line, "a GPX element's text is too long")
                    }
                    pending = start..<position
                } else {
                    try appendText(start..<position)
                }
            }
            guard position < bytes.count else { throw truncated("the gpx element") }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "<"):
                return
            case UInt8(ascii: "&"):
                position += 1
                let value = try reference()
                if collecting {
                    if value < 0x80 {
                        try appendText(UInt8(value))
                    } else {
                        flushPending()
                        ExportBodyReader.appendUTF8(value, to: &text)
                        try checkText()
                    }
                }
            case UInt8(ascii: "]"):
                if sees("]]>") { throw malformed("text holds \"]]>\"") }
                position += 1
                work += 1
                if collecting { try appendText(byte) }
            default:
                try character(keep: collecting)
            }
        }
    }

    /// Copies the text read in place (``pending``) into ``text``, before more is appended.
    private mutating func flushPending() {
        guard let range = pending else { return }
        pending = nil
        text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
    }

    private mutating func appendText(_ byte: UInt8) throws(AppleHealthExportError) {
        flushPending()
        text.append(byte)
        try checkText()
    }

    private mutating func appendText(_ range: Range<Int>) throws(AppleHealthExportError) {
        flushPending()
        text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
        try checkText()
    }

    private func checkText() throws(AppleHealthExportError) {
        if text.count > Self.maximumText { throw AppleHealthExportError(.tooLarge, line: line, "a GPX element's text is too long") }
    }

    /// `<!-- … -->` (`<!--` consumed), with no `--` inside.
    private mutating func comment() throws(AppleHealthExportError) {
        while true {
            guard position < bytes.count else { throw truncated("a comment") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "-"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "-") {
                guard position + 2 < bytes.count else { throw truncated("a comment") }
                guard bytes[position + 2] == UInt8(ascii: ">") else { throw malformed("a comment holds \"--\"") }
                position += 3
                return
            }
            try refuseDeclaration()
            try character(keep: false)
        }
    }

    /// `<![CDATA[ … ]]>` (`<![CDATA[` consumed): text, kept while ``collecting``.
    private mutating func cdata() throws(AppleHealthExportError) {
        while true {
            guard position < bytes.count else { throw truncated("a CDATA section") }
            if take("]]>") { return }
            try refuseDeclaration()
            try character(keep: collecting)
        }
    }

    /// `<?target … ?>` (`<?` consumed): the target is a name other than `xml` in any case, and
    /// white space separates it from the data.
    private mutating func instruction() throws(AppleHealthExportError) {
        let target = try name()
        if target.end - target.start == 3, bytes[target.start] | 0x20 == UInt8(ascii: "x"), bytes[target.start + 1] | 0x20 == UInt8(ascii: "m"),
           bytes[target.start + 2] | 0x20 == UInt8(ascii: "l") {
            throw malformed("an XML declaration comes after the start of the file")
        }
        if take("?>") { return }
        guard skipSpace() else { throw malformed("a processing instruction's target is not followed by white space") }
        while true {
            guard position < bytes.count else { throw truncated("a processing instruction") }
            if take("?>") { return }
            try refuseDeclaration()
            try character(keep: false)
        }
    }

    /// A document type or entity declaration's opening inside a comment, instruction or CDATA
    /// section is refused as one anywhere else is (the `XMLParser` path looked for the bytes
    /// anywhere in the file).
    private func refuseDeclaration() throws(AppleHealthExportError) {
        if bytes[position] == UInt8(ascii: "<"), sees("<!DOCTYPE") || sees("<!ENTITY") {
            throw AppleHealthExportError(.entityDeclaration, "the GPX file declares a document type, which routes never do")
        }
    }

    /// A start tag (`<` consumed): the element's name, its attributes, `>` or `/>`.
    private mutating func startTag() throws(AppleHealthExportError) {
        let elementName = try name()
        let elementColon = sawColon
        let isPoint = isName(elementName, word: GPXNames.trkpt, count: 5)
        if !attributeNames.isEmpty { attributeNames.removeAll(keepingCapacity: true) }
        var latitude = NumberField.absent, longitude = NumberField.absent
        var selfClosing = false
        while true {
            let spaced = skipSpace()
            guard position < bytes.count else { throw truncated("a start tag") }
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") {
                position += 1
                break
            }
            if byte == UInt8(ascii: "/") {
                guard position + 1 < bytes.count else { throw truncated("a start tag") }
                guard bytes[position + 1] == UInt8(ascii: ">") else { throw malformed("a start tag is not well-formed") }
                position += 2
                selfClosing = true
                break
            }
            guard spaced else { throw malformed("a start tag's attributes are not separated by white space") }
            let attributeName = try name()
            guard attributeNames.count < Self.maximumAttributes else {
                throw AppleHealthExportError(.tooLarge, line: line, "a start tag has more than \(Self.maximumAttributes) attributes")
            }
            // Names compared byte for byte only where their hashes agree.
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for index in attributeName.start..<attributeName.end { hash = (hash ^ UInt64(bytes[index])) &* 0x100_0000_01B3 }
            work += attributeName.end - attributeName.start + attributeNames.count
            for earlier in attributeNames where earlier.hash == hash {
                work += attributeName.end - attributeName.start
                if bytes[earlier.start..<earlier.end].elementsEqual(bytes[attributeName.start..<attributeName.end]) {
                    throw malformed("a start tag has the same attribute twice")
                }
            }
            attributeNames.append((attributeName.start, attributeName.end, hash, sawColon))
            let wanted = isPoint && (isName(attributeName, "lat") || isName(attributeName, "lon"))
            let value = try attributeValue(keep: wanted)
            if wanted {
                if bytes[attributeName.start + 1] == UInt8(ascii: "a") { latitude = value } else { longitude = value }
            }
        }
        let declared = try namespaces(elementName, colon: elementColon)
        try didStart(elementName, isPoint: isPoint, latitude: latitude, longitude: longitude)
        if selfClosing {
            if declared > 0 { prefixes.removeLast(declared) }
            try didEnd(elementName)
        } else {
            openNames.append(elementName)
            openDeclarations.append(declared)
        }
    }

    /// Namespace well-formedness, as libxml2 (under `XMLParser`) checked it though namespaces
    /// were not processed: a name with a colon is `prefix:local`, one colon, both parts there,
    /// and its prefix is `xml` or declared by `xmlns:prefix` on the element or one around it
    /// (`xmlns` only on attributes). Adds the start tag's declarations to ``prefixes``; how many.
    private mutating func namespaces(_ elementName: (start: Int, end: Int), colon: Bool) throws(AppleHealthExportError) -> Int {
        var declared = 0
        for attribute in attributeNames where attribute.colon {
            if attribute.end - attribute.start > 6, bytes[attribute.start..<attribute.start + 6].elementsEqual("xmlns:".utf8) {
                guard prefixes.count < Self.maximumAttributes else {
                    throw AppleHealthExportError(.tooLarge, line: line, "more than \(Self.maximumAttributes) namespace prefixes are declared")
                }
                prefixes.append((attribute.start + 6, attribute.end))
                declared += 1
            }
        }
        if colon { try checkPrefix(elementName, attribute: false) }
        for attribute in attributeNames where attribute.colon { try checkPrefix((attribute.start, attribute.end), attribute: true) }
        return declared
    }

    private mutating func checkPrefix(_ name: (start: Int, end: Int), attribute: Bool) throws(AppleHealthExportError) {
        var colon = name.start
        while bytes[colon] != UInt8(ascii: ":") { colon += 1 }
        let prefix = (start: name.start, end: colon)
        guard colon > name.start, colon + 1 < name.end, !bytes[(colon + 1)..<name.end].contains(UInt8(ascii: ":")) else {
            throw malformed("a name is not a well-formed qualified name")
        }
        if isName(prefix, "xml") || (attribute && isName(prefix, "xmlns")) { return }
        work += prefixes.count
        for declaredPrefix in prefixes.reversed() where bytes[declaredPrefix.start..<declaredPrefix.end].elementsEqual(bytes[prefix.start..<prefix.end]) {
            return
        }
        throw malformed("a name's namespace prefix is not declared")
    }

    /// An attribute's `= "value"` after its name: the value checked and, when `keep`, read as a
    /// coordinate (normalized as XML does for attributes without a declared type: a literal
    /// tab, line feed or carriage return, a CR LF pair counting as one, becomes a space).
    private mutating func attributeValue(keep: Bool) throws(AppleHealthExportError) -> NumberField {
        _ = skipSpace()
        guard take("=") else {
            if position == bytes.count { throw truncated("a start tag") }
            throw malformed("an attribute has no value")
        }
        _ = skipSpace()
        guard position < bytes.count else { throw truncated("a start tag") }
        let quote = bytes[position]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { throw malformed("an attribute value is not quoted") }
        position += 1
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == quote || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte < 0x20 || byte >= 0x80 { break }
            position += 1
        }
        work += position - start
        guard position < bytes.count else { throw truncated("an attribute value") }
        if bytes[position] == quote {
            // The value as it is (every value Apple writes).
            position += 1
            return keep ? .read(GPXNumbers.attributeNumber(UnsafeBufferPointer(rebasing: bytes[start..<position - 1]))) : .absent
        }
        scratch.removeAll(keepingCapacity: true)
        if keep { scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position])) }
        while true {
            guard position < bytes.count else { throw truncated("an attribute value") }
            let byte = bytes[position]
            work += 1
            switch byte {
            case quote:
                position += 1
                return keep ? .read(scratch.withUnsafeBufferPointer { GPXNumbers.attributeNumber($0) }) : .absent
            case UInt8(ascii: "&"):
                position += 1
                let value = try reference()
                if keep { ExportBodyReader.appendUTF8(value, to: &scratch) }
            case UInt8(ascii: "<"):
                throw malformed("an attribute value holds \"<\"")
            case 0x09, 0x0A, 0x0D:
                position += 1
                if byte == 0x0D, position < bytes.count, bytes[position] == 0x0A { position += 1 }
                if byte != 0x09 { line += 1 }
                if keep { scratch.append(0x20) }
            case 0x80...:
                let length = try scalar().length
                if keep { scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<position + length])) }
                position += length
            case ..<0x20:
                throw malformed("the GPX file holds a character XML does not allow")
            default:
                position += 1
                if keep { scratch.append(byte) }
            }
        }
    }

    /// An end tag (`</` consumed): the name of the innermost open element, optional white space, `>`.
    private mutating func endTag() throws(AppleHealthExportError) {
        guard let open = openNames.last else { throw malformed("an end tag has no start tag") }
        let elementName = try name()
        work += open.end - open.start
        let length = open.end - open.start
        var same = elementName.end - elementName.start == length
        var index = 0
        while same, index < length {
            same = bytes[open.start + index] == bytes[elementName.start + index]
            index += 1
        }
        guard same else { throw malformed("an end tag does not match its start tag") }
        _ = skipSpace()
        guard position < bytes.count else { throw truncated("an end tag") }
        guard bytes[position] == UInt8(ascii: ">") else { throw malformed("an end tag is not well-formed") }
        position += 1
        openNames.removeLast()
        let declared = openDeclarations.removeLast()
        if declared > 0 { prefixes.removeLast(declared) }
        try didEnd(elementName)
    }

    // MARK: Events

    /// An element started (its start tag read; `openNames` does not hold it yet), as
    /// `XMLParser`'s delegate handled `didStartElement`.
    private mutating func didStart(_ elementName: (start: Int, end: Int), isPoint: Bool, latitude: NumberField,
                                   longitude: NumberField) throws(AppleHealthExportError) {
        let depth = openNames.count + 1
        guard depth <= Self.maximumDepth else { throw AppleHealthExportError(.tooLarge, line: line, "the GPX file's elements are nested too deeply") }
        if depth == 1, !isName(elementName, "gpx") { throw AppleHealthExportError(.malformedXML, line: line, "the GPX file's root element is not gpx") }
        if isPoint {
            guard point == nil else { throw AppleHealthExportError(.invalidElement, line: line, "a GPX track point is inside another") }
            guard locations.count < maximumPoints else {
                throw AppleHealthExportError(.tooLarge, line: line, "the GPX route has more than \(maximumPoints) points")
            }
            point = PointValues(latitude: latitude, longitude: longitude)
        } else if point != nil, field(elementName) != nil {
            collecting = true
            if !text.isEmpty { text.removeAll(keepingCapacity: true) }
            pending = nil
        }
    }

    /// An element ended, as `XMLParser`'s delegate handled `didEndElement`.
    private mutating func didEnd(_ elementName: (start: Int, end: Int)) throws(AppleHealthExportError) {
        if openNames.isEmpty { closedRoot = true }
        if collecting, let field = field(elementName) {
            let value: (number: NumberField, time: Date?)
            if let range = pending {
                value = GPXNumbers.trimmed(UnsafeBufferPointer(rebasing: bytes[range])) { PointValues.value(field, $0) }
            } else {
                value = text.withUnsafeBufferPointer { buffer in GPXNumbers.trimmed(buffer) { PointValues.value(field, $0) } }
            }
            point?.set(field, value)
            collecting = false
        } else if isName(elementName, word: GPXNames.trkpt, count: 5), let values = point {
            point = nil
            guard let location = values.location() else {
                throw AppleHealthExportError(.invalidElement, line: line, "a GPX track point has no valid coordinate or time")
            }
            locations.append(location)
        }
    }

    /// Which of a point's fields an element of this name is.
    private func field(_ elementName: (start: Int, end: Int)) -> PointValues.Field? {
        let count = elementName.end - elementName.start
        guard count >= 3, count <= 6 else { return nil }
        switch packed(elementName) {
        case GPXNames.ele: return .ele
        case GPXNames.time: return .time
        case GPXNames.hAcc: return .hAcc
        case GPXNames.vAcc: return .vAcc
        case GPXNames.speed: return .speed
        case GPXNames.course: return .course
        default: return nil
        }
    }
}

/// The names the reader looks for, each as its bytes packed into a word, the first byte lowest
/// (what `GPXByteReader.packed` makes of a name of at most 8 bytes; names differ in length or
/// in these bytes, so a name of the right length is the name when its word is).
enum GPXNames {
    static let ele: UInt64 = 0x65_6C65
    static let time: UInt64 = 0x656D_6974
    static let hAcc: UInt64 = 0x6363_4168
    static let vAcc: UInt64 = 0x6363_4176
    static let speed: UInt64 = 0x64_6565_7073
    static let course: UInt64 = 0x6573_7275_6F63
    static let trkpt: UInt64 = 0x74_706B_7274

    /// A literal's bytes packed as the reader packs a name (for the tests).
    static func word(_ literal: String) -> UInt64 {
        literal.utf8.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// A value of a point: not there, or there and read (nil when it is not a finite number).
enum NumberField {
    case absent
    case read(Double?)

    var value: Double? {
        if case .read(let value) = self { return value }
        return nil
    }

    /// There but not a number.
    var isUnreadable: Bool {
        if case .read(nil) = self { return true }
        return false
    }
}

/// The values of one track point as read (a field read twice keeps the last).
private struct PointValues {
    enum Field { case ele, time, speed, course, hAcc, vAcc }

    var latitude: NumberField
    var longitude: NumberField
    var ele = NumberField.absent
    var speed = NumberField.absent
    var course = NumberField.absent
    var hAcc = NumberField.absent
    var vAcc = NumberField.absent
    var time: Date?

    init(latitude: NumberField, longitude: NumberField) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// A field's value read from its trimmed text: a time for `time`, a number for the others.
    static func value(_ field: Field, _ text: UnsafeBufferPointer<UInt8>) -> (number: NumberField, time: Date?) {
        field == .time ? (.absent, GPXNumbers.date(text)) : (.read(GPXNumbers.number(text)), nil)
    }

    /// Sets a field to its value.
    mutating func set(_ field: Field, _ value: (number: NumberField, time: Date?)) {
        switch field {
        case .ele: ele = value.number
        case .time: time = value.time
        case .speed: speed = value.number
        case .course: course = value.number
        case .hAcc: hAcc = value.number
        case .vAcc: vAcc = value.number
        }
    }

    /// The location, as the `XMLParser` path built it; nil when the point is invalid.
    func location() -> CLLocation? {
        guard let latitude = latitude.value, let longitude = longitude.value, let time else { return nil }
        let coordinate = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
        guard CLLocationCoordinate2DIsValid(coordinate) else { return nil }
        // A value present but unreadable makes the point invalid rather than silently unknown.
        if ele.isUnreadable || speed.isUnreadable || course.isUnreadable || hAcc.isUnreadable || vAcc.isUnreadable { return nil }
        let altitude = ele.value
        return CLLocation(coordinate: coordinate, altitude: altitude ?? 0, horizontalAccuracy: hAcc.value ?? 0,
                          verticalAccuracy: vAcc.value ?? (altitude == nil ? -1 : 0), course: course.value ?? -1,
                          courseAccuracy: -1, speed: speed.value ?? -1, speedAccuracy: -1, timestamp: time)
    }
}

/// Numbers, times and trimming of a GPX file's text, read from its bytes with the results the
/// `XMLParser` path gave from strings: `Double(String)` (correctly rounded), ``GPXRouteReader/date(_:)``,
/// ``GPXRouteReader/trimmed(_:)``.
enum GPXNumbers {
    /// Powers of ten a Double holds exactly.
    private static let powersOfTen: [Double] = (0...22).map { (exponent: Int) -> Double in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// `-?digits(.digits)?` with at most 2^53 as the digits' integer and at most 22 digits after
    /// the point, read exactly: both the integer and the power of ten are exact Doubles, so their
    /// quotient is the correctly rounded value, as `Double(String)` gives (Clinger's fast path).
    /// Nil for any other text, which goes to `Double(String)`.
    static func plainDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        let count = text.count
        var index = 0
        let negative = count > 0 && text[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        // The integer's digits, then nothing or a point and the fraction's digits.
        let integerStart = index
        while index < count {
            let digit = UInt64(text[index] &- 0x30)
            guard digit < 10 else { break }
            mantissa = mantissa &* 10 &+ digit
            guard mantissa <= 1 << 53 else { return nil }
            index += 1
        }
        guard index > integerStart else { return nil }
        var fractionDigits = 0
        if index < count {
            guard text[index] == UInt8(ascii: ".") else { return nil }
            index += 1
            let fractionStart = index
            while index < count {
                let digit = UInt64(text[index] &- 0x30)
                guard digit < 10 else { return nil }
                mantissa = mantissa &* 10 &+ digit
                guard mantissa <= 1 << 53 else { return nil }
                index += 1
            }
            fractionDigits = index - fractionStart
            guard fractionDigits > 0, fractionDigits <= 22 else { return nil }
        }
        let magnitude = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -magnitude : magnitude
    }

    /// A number of a point's field (trimmed text): finite, or nil.
    static func number(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if let value = plainDecimal(text) { return value }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// A coordinate attribute's value: finite, or nil. The `XMLParser` path read the value's
    /// first 256 characters.
    static func attributeNumber(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if text.count <= GPXByteReader.maximumText, let value = plainDecimal(text) { return value }
        let string = String(decoding: text, as: UTF8.self)
        guard let value = Double(String(string.prefix(GPXByteReader.maximumText))), value.isFinite else { return nil }
        return value
    }

    /// A point's time (trimmed text).
    static func date(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        if let seconds = GPXRouteReader.plainSeconds(text) { return Date(timeIntervalSince1970: Double(seconds)) }
        return GPXRouteReader.date(String(decoding: text, as: UTF8.self))
    }

    /// `text` without its surrounding white space, as ``GPXRouteReader/trimmed(_:)`` gives it:
    /// ASCII text without its leading and trailing ASCII white space (tab, line feed, vertical
    /// tab, form feed, carriage return, space: the ASCII members of Foundation's
    /// `whitespacesAndNewlines`), other text through it.
    static func trimmed<Result>(_ text: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var start = 0
        var end = text.count
        var ascii = true
        for byte in text where byte >= 0x80 {
            ascii = false
            break
        }
        guard ascii else {
            var string = GPXRouteReader.trimmed(String(decoding: text, as: UTF8.self))
            return string.withUTF8 { body($0) }
        }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        while start < end, isSpace(text[start]) { start += 1 }
        while end > start, isSpace(text[end - 1]) { end -= 1 }
        return body(UnsafeBufferPointer(rebasing: text[start..<end]))
    }
}
