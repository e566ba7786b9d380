/// The pull reader behind ``ExportXMLReader``: reads export.xml from its root element's `<` on,
/// byte by byte, from the chunks ``PrologStrippedStream`` hands it, and builds each child of
/// `HealthData` (with its descendants) as an ``ExportElement``. Hand-written: no XML package is
/// among the project's allowed dependencies (``ExportXMLReader`` lists what is checked).
///
/// Memory: the unread part of the current chunk (a token cut by a chunk's end keeps its start),
/// the names of the open elements, and the top-level element being built; text, comments,
/// CDATA sections and processing instructions are checked as they are read and never kept.
/// Every loop consumes a byte or ends, and every token ends at the end of the input: the reader
/// cannot loop, and a truncated file is `malformedXML`.
struct ExportBodyReader {
    private let limits: ExportXMLReader
    private let stream: PrologStrippedStream
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false
    /// The line the reader is on.
    private(set) var line: Int
    /// The names of the open elements, root first, one after the other, and where each starts.
    private var openNames: [UInt8] = []
    private var openStarts: [Int] = []
    /// The open elements below the root, outermost first.
    private var building: [ExportElement] = []
    private var descendants = 0
    private var closedRoot = false
    /// Reused for names and for the attributes of the start tag being read.
    private var name: [UInt8] = []
    private var attributeBytes: [UInt8] = []
    private var spans: [ExportElement.Span] = []

    init(limits: ExportXMLReader, stream: PrologStrippedStream) {
        self.limits = limits
        self.stream = stream
        line = 1
        name.reserveCapacity(64)
        attributeBytes.reserveCapacity(1024)
        spans.reserveCapacity(16)
    }

    // MARK: Input

    /// Reads chunks until `count` bytes from the position are in the buffer; false at the end.
    private mutating func ensure(_ count: Int) -> Bool {
        while buffer.count - position < count {
            guard !ended, let chunk = stream.nextChunk() else {
                ended = true
                return false
            }
            if position > 0 {
                buffer.removeSubrange(0..<position)
                position = 0
            }
            buffer.append(contentsOf: chunk)
        }
        return true
    }

    @inline(__always)
    private mutating func peek() -> UInt8? {
        if position < buffer.count { return buffer[position] }
        return ensure(1) ? buffer[position] : nil
    }

    /// The byte `offset` after the position, nil past the end.
    private mutating func peek(at offset: Int) -> UInt8? {
        ensure(offset + 1) ? buffer[position + offset] : nil
    }

    /// Whether the bytes at the position are `literal` (consumed if so).
    private mutating func take(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard ensure(count) else { return false }
        let start = literal.utf8Start
        for index in 0..<count where buffer[position + index] != start[index] { return false }
        position += count
        return true
    }

    private func malformed(_ detail: String) -> AppleHealthExportError {
        AppleHealthExportError(.malformedXML, line: line, detail)
    }

    private func truncated(_ inside: String) -> AppleHealthExportError {
        AppleHealthExportError(.malformedXML, line: line, "the file ends inside \(inside): the XML ends early")
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// Skips white space; whether there was any.
    private mutating func skipSpace() -> Bool {
        var skipped = false
        while let byte = peek(), Self.isSpace(byte) {
            if byte == 0x0A { line += 1 }
            position += 1
            skipped = true
        }
        return skipped
    }

    /// Reads one UTF-8 sequence starting with a byte of 0x80 or more at the position, checks it
    /// is well formed and a character XML allows, and returns its scalar value and length
    /// (not consumed).
    private mutating func scalar() throws(AppleHealthExportError) -> (value: UInt32, length: Int) {
        guard peek() != nil else { throw truncated("a character") }
        _ = ensure(4)
        let start = position
        switch buffer.withUnsafeBufferPointer({ Self.utf8Scalar(in: $0, at: start) }) {
        case .scalar(let value, let length): return (value, length)
        case .endsEarly: throw truncated("a character")
        case .notWellFormed: throw malformed("the file is not well-formed UTF-8")
        case .notAllowed: throw malformed("the file holds a character XML does not allow")
        }
    }

    /// What ``utf8Scalar(in:at:)`` read.
    enum UTF8Scalar: Equatable {
        case scalar(UInt32, length: Int)
        /// The bytes end inside the sequence.
        case endsEarly
        case notWellFormed
        /// U+FFFE or U+FFFF.
        case notAllowed
    }

    /// The UTF-8 sequence at `index` of `bytes`, whose lead byte is 0x80 or more: its scalar
    /// value and length when it is well formed and a character XML allows (shared with
    /// ``GPXByteReader``, which reads a whole file at once).
    static func utf8Scalar(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UTF8Scalar {
        let lead = bytes[index]
        let length: Int
        var value: UInt32
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0: length = 3; value = 0; low = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: length = 3; value = UInt32(lead & 0x0F)
        case 0xED: length = 3; value = 0x0D; high = 0x9F
        case 0xF0: length = 4; value = 0; low = 0x90
        case 0xF1...0xF3: length = 4; value = UInt32(lead & 0x07)
        case 0xF4: length = 4; value = 4; high = 0x8F
        default: return .notWellFormed
        }
        guard bytes.count - index >= length else { return .endsEarly }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            let (min, max) = offset == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
            guard byte >= min, byte <= max else { return .notWellFormed }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value != 0xFFFE, value != 0xFFFF else { return .notAllowed }
        return .scalar(value, length: length)
    }

    /// Checks the byte at the position as a character of text, a comment, a CDATA section or an
    /// instruction (not `<`, `&` or the delimiters the caller looks for) and consumes it.
    @inline(__always)
    private mutating func character(_ byte: UInt8) throws(AppleHealthExportError) {
        if byte >= 0x20 && byte < 0x80 {
            position += 1
        } else if byte == 0x0A {
            line += 1
            position += 1
        } else if byte == 0x09 || byte == 0x0D {
            position += 1
        } else if byte >= 0x80 {
            position += try scalar().length
        } else {
            throw malformed("the file holds a character XML does not allow")
        }
    }

    // MARK: Names

    static func isNameStart(_ value: UInt32) -> Bool {
        switch value {
        case 0x41...0x5A, 0x61...0x7A, 0x5F, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D, 0x37F...0x1FFF, 0x200C...0x200D,
             0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFFD, 0x10000...0xEFFFF:
            return true
        default:
            return false
        }
    }

    @inline(__always)
    static func isASCIINameStart(_ byte: UInt8) -> Bool {
        (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F
    }

    @inline(__always)
    static func isASCIINameCharacter(_ byte: UInt8) -> Bool {
        isASCIINameStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
    }

    static func isNameCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x2D, 0x2E, 0x30...0x39, 0xB7, 0x300...0x36F, 0x203F...0x2040: return true
        default: return isNameStart(value)
        }
    }

    /// Where the name at the position ends when ``readName(tooLong:)`` would read it as one run of ASCII name
    /// characters ended by an ASCII byte (not a name character) in the buffer, at most ``ExportXMLReader/maximumNameLength``
    /// long; nil otherwise (`readName` then reads it).
    private func asciiNameEnd() -> Int? {
        guard position < buffer.count, Self.isASCIINameStart(buffer[position]) else { return nil }
        let start = position
        let limit = limits.maximumNameLength
        return buffer.withUnsafeBufferPointer { bytes -> Int? in
            var end = start + 1
            while end < bytes.count, Self.isASCIINameCharacter(bytes[end]) { end += 1 }
            guard end < bytes.count, bytes[end] < 0x80, end - start <= limit else { return nil }
            return end
        }
    }

    /// Reads a name (XML 1.0 fifth edition's, without colons) into ``name``.
    private mutating func readName(tooLong: AppleHealthExportError.Kind) throws(AppleHealthExportError) {
        name.removeAll(keepingCapacity: true)
        // A run of ASCII name characters in the buffer at once (every name of an export); the
        // byte that ends it, or a chunk's end, goes through the loop below.
        if position < buffer.count, Self.isASCIINameStart(buffer[position]) {
            let start = position
            let end = buffer.withUnsafeBufferPointer { bytes in
                var end = start + 1
                while end < bytes.count, Self.isASCIINameCharacter(bytes[end]) { end += 1 }
                return end
            }
            name.append(contentsOf: buffer[position..<end])
            position = end
            if name.count > limits.maximumNameLength {
                throw AppleHealthExportError(tooLong, line: line, "a name is longer than \(limits.maximumNameLength) bytes")
            }
        }
        while true {
            guard let byte = peek() else { throw truncated("a name") }
            let value: UInt32
            let length: Int
            if byte < 0x80 {
                (value, length) = (UInt32(byte), 1)
            } else {
                (value, length) = try scalar()
            }
            let first = name.isEmpty
            guard first ? Self.isNameStart(value) : Self.isNameCharacter(value) else {
                if first { throw malformed("a name starts with a character names cannot start with") }
                return
            }
            if length == 1 { name.append(byte) } else { name.append(contentsOf: buffer[position..<position + length]) }
            position += length
            if name.count > limits.maximumNameLength {
                throw AppleHealthExportError(tooLong, line: line, "a name is longer than \(limits.maximumNameLength) bytes")
            }
        }
    }

    // MARK: References

    /// Reads the reference at the position (`&` consumed) and returns the character it stands for.
    private mutating func reference() throws(AppleHealthExportError) -> UInt32 {
        guard let first = peek() else { throw truncated("a reference") }
        if first == UInt8(ascii: "#") {
            position += 1
            var radix: UInt32 = 10
            if peek() == UInt8(ascii: "x") {
                radix = 16
                position += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while true {
                guard let byte = peek() else { throw truncated("a character reference") }
                if byte == UInt8(ascii: ";") {
                    position += 1
                    guard digits > 0, Self.isCharacter(value) else { throw malformed("a character reference is not to a character XML allows") }
                    return value
                }
                guard let digit = Self.referenceDigit(byte, radix: radix) else { throw malformed("a character reference is not well-formed") }
                value = value * radix + digit
                digits += 1
                position += 1
                guard value <= 0x10FFFF else { throw malformed("a character reference is not to a character XML allows") }
            }
        }
        // `&lt;` and `&gt;` (a device description has four) without the loop below, which reads them the same.
        if position + 2 < buffer.count, buffer[position + 1] == UInt8(ascii: "t"), buffer[position + 2] == UInt8(ascii: ";"),
           first == UInt8(ascii: "l") || first == UInt8(ascii: "g") {
            position += 3
            return first == UInt8(ascii: "l") ? 0x3C : 0x3E
        }
        var entity: [UInt8] = []
        while let byte = peek(), byte != UInt8(ascii: ";"), entity.count < 5 {
            entity.append(byte)
            position += 1
        }
        guard let end = peek() else { throw truncated("a reference") }
        guard end == UInt8(ascii: ";") else { throw malformed("a reference is not well-formed or names an undeclared entity") }
        position += 1
        guard let value = Self.predefinedEntity(entity) else { throw malformed("a reference names an undeclared entity (exports declare none)") }
        return value
    }

    /// The value of a digit of a character reference (`&#38;`, `&#x26;`) in `radix` (10 or 16);
    /// nil for a byte that is not one.
    static func referenceDigit(_ byte: UInt8, radix: UInt32) -> UInt32? {
        switch byte {
        case 0x30...0x39: return UInt32(byte - 0x30)
        case 0x61...0x66 where radix == 16: return UInt32(byte - 0x61 + 10)
        case 0x41...0x46 where radix == 16: return UInt32(byte - 0x41 + 10)
        default: return nil
        }
    }

    /// The character one of XML's five predefined entities (`lt`, `gt`, `amp`, `apos`, `quot`)
    /// stands for; nil for any other name.
    static func predefinedEntity(_ name: some Collection<UInt8>) -> UInt32? {
        switch name.count {
        case 2 where name.elementsEqual("lt".utf8): return 0x3C
        case 2 where name.elementsEqual("gt".utf8): return 0x3E
        case 3 where name.elementsEqual("amp".utf8): return 0x26
        case 4 where name.elementsEqual("apos".utf8): return 0x27
        case 4 where name.elementsEqual("quot".utf8): return 0x22
        default: return nil
        }
    }

    static func isCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    static func appendUTF8(_ value: UInt32, to output: inout [UInt8]) {
        switch value {
        case ..<0x80:
            output.append(UInt8(value))
        case ..<0x800:
            output.append(UInt8(0xC0 | value >> 6))
            output.append(UInt8(0x80 | value & 0x3F))
        case ..<0x10000:
            output.append(UInt8(0xE0 | value >> 12))
            output.append(UInt8(0x80 | value >> 6 & 0x3F))
            output.append(UInt8(0x80 | value & 0x3F))
        default:
            output.append(UInt8(0xF0 | value >> 18))
            output.append(UInt8(0x80 | value >> 12 & 0x3F))
            output.append(UInt8(0x80 | value >> 6 & 0x3F))
            output.append(UInt8(0x80 | value & 0x3F))
        }
    }

    // MARK: Document

    /// Reads the body, handing each closed child of the root to `handler`.
    mutating func run(_ handler: (ExportElement) throws -> Void) throws {
        try prolog()
        try startTag(handler)
        while !closedRoot {
            try text()
            // At `<`.
            position += 1
            guard let byte = peek() else { throw truncated("a tag") }
            switch byte {
            case UInt8(ascii: "/"):
                position += 1
                try endTag(handler)
            case UInt8(ascii: "?"):
                position += 1
                try instruction()
            case UInt8(ascii: "!"):
                if take("!--") {
                    try comment()
                } else if take("![CDATA[") {
                    try cdata()
                } else {
                    if ended { throw truncated("markup") }
                    throw malformed("markup in an element that is neither a comment nor a CDATA section")
                }
            default:
                try startTag(handler)
            }
        }
        // After the root: comments, instructions and white space only.
        while true {
            _ = skipSpace()
            guard peek() != nil else { return }
            if take("<?") {
                try instruction()
            } else if take("<!--") {
                try comment()
            } else {
                if ended { throw truncated("markup after the HealthData element") }
                throw malformed("something other than comments and processing instructions follows the HealthData element")
            }
        }
    }

    /// The XML declaration, comments, instructions and white space before the root element
    /// (``ExportProlog`` read them first, and the stream left the document type declaration
    /// out), up to the root's `<` (consumed).
    private mutating func prolog() throws(AppleHealthExportError) {
        if ensure(6), buffer[position..<position + 5].elementsEqual("<?xml".utf8), Self.isSpace(buffer[position + 5]) {
            position += 5
            try xmlDeclaration()
        }
        while true {
            _ = skipSpace()
            if take("<?") {
                try instruction()
            } else if take("<!--") {
                try comment()
            } else if peek() == UInt8(ascii: "<") {
                position += 1
                return
            } else {
                throw AppleHealthExportError(.notAnExport, line: line, "no HealthData element: not an Apple Health export.xml")
            }
        }
    }

    /// `<?xml version="1.0" encoding="…" standalone="…"?>` (`<?xml` consumed), in that order:
    /// a version `1.` and digits, `yes` or `no` (``ExportProlog`` checked the encoding).
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
            guard let quote = peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw malformed("the XML declaration is not well-formed")
            }
            position += 1
            var value: [UInt8] = []
            while let byte = peek(), byte != quote, value.count < 64 {
                value.append(byte)
                position += 1
            }
            guard peek() == quote else { throw malformed("the XML declaration is not well-formed") }
            position += 1
            let valid: Bool
            if first {
                valid = value.count > 2 && value.starts(with: Array("1.".utf8)) && value.dropFirst(2).allSatisfy { (0x30...0x39).contains($0) }
            } else if pseudo.utf8CodeUnitCount == 10 {
                valid = value == Array("yes".utf8) || value == Array("no".utf8)
            } else {
                valid = !value.isEmpty
            }
            guard valid else { throw malformed("the XML declaration is not well-formed") }
            first = false
            spaced = skipSpace()
        }
        guard take("?>") else { throw malformed("the XML declaration is not well-formed") }
    }

    /// Text inside an element, up to the next `<`: references and characters checked, not kept.
    private mutating func text() throws(AppleHealthExportError) {
        while true {
            guard let byte = peek() else { throw AppleHealthExportError(.malformedXML, line: line, "the file ends before the HealthData element does") }
            switch byte {
            case UInt8(ascii: "<"):
                return
            case UInt8(ascii: "&"):
                position += 1
                _ = try reference()
            case UInt8(ascii: "]"):
                if peek(at: 1) == UInt8(ascii: "]"), peek(at: 2) == UInt8(ascii: ">") { throw malformed("text holds \"]]>\"") }
                position += 1
            default:
                try character(byte)
            }
        }
    }

    /// `<!-- … -->` (`<!--` consumed), with no `--` inside.
    private mutating func comment() throws(AppleHealthExportError) {
        while true {
            guard let byte = peek() else { throw truncated("a comment") }
            if byte == UInt8(ascii: "-") {
                guard let next = peek(at: 1) else { throw truncated("a comment") }
                if next == UInt8(ascii: "-") {
                    guard let last = peek(at: 2) else { throw truncated("a comment") }
                    guard last == UInt8(ascii: ">") else { throw malformed("a comment holds \"--\"") }
                    position += 3
                    return
                }
                position += 1
            } else {
                try character(byte)
            }
        }
    }

    /// `<![CDATA[ … ]]>` (`<![CDATA[` consumed).
    private mutating func cdata() throws(AppleHealthExportError) {
        while true {
            guard let byte = peek() else { throw truncated("a CDATA section") }
            if byte == UInt8(ascii: "]"), peek(at: 1) == UInt8(ascii: "]"), peek(at: 2) == UInt8(ascii: ">") {
                position += 3
                return
            }
            try character(byte)
        }
    }

    /// `<?target … ?>` (`<?` consumed): the target is a name other than `xml` in any case, and
    /// white space separates it from the data.
    private mutating func instruction() throws(AppleHealthExportError) {
        try readName(tooLong: .tooLarge)
        if name.count == 3, name[0] | 0x20 == UInt8(ascii: "x"), name[1] | 0x20 == UInt8(ascii: "m"), name[2] | 0x20 == UInt8(ascii: "l") {
            throw malformed("an XML declaration comes after the start of the file")
        }
        if take("?>") { return }
        guard skipSpace() else {
            if ended { throw truncated("a processing instruction") }
            throw malformed("a processing instruction's target is not followed by white space")
        }
        while true {
            guard let byte = peek() else { throw truncated("a processing instruction") }
            if byte == UInt8(ascii: "?"), peek(at: 1) == UInt8(ascii: ">") {
                position += 2
                return
            }
            try character(byte)
        }
    }

    /// A start tag (`<` consumed): the element's name, its attributes, `>` or `/>`.
    private mutating func startTag(_ handler: (ExportElement) throws -> Void) throws {
        let nameStart = openNames.count
        if let end = asciiNameEnd() {
            openNames.append(contentsOf: buffer[position..<end])
            position = end
        } else {
            try readName(tooLong: .tooLarge)
            openNames.append(contentsOf: name)
        }
        attributeBytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        var selfClosing = false
        while true {
            let spaced = skipSpace()
            guard let byte = peek() else { throw truncated("a start tag") }
            if byte == UInt8(ascii: ">") {
                position += 1
                break
            }
            if byte == UInt8(ascii: "/") {
                guard let next = peek(at: 1) else { throw truncated("a start tag") }
                guard next == UInt8(ascii: ">") else { throw malformed("a start tag is not well-formed") }
                position += 2
                selfClosing = true
                break
            }
            guard spaced else { throw malformed("a start tag's attributes are not separated by white space") }
            try attribute()
        }
        let depth = openStarts.count + 1
        let elementName = String(decoding: openNames[nameStart...], as: UTF8.self)
        if depth == 1 {
            guard elementName == "HealthData" else {
                throw AppleHealthExportError(.notAnExport, line: line, "the root element is not HealthData")
            }
        } else {
            guard depth <= limits.maximumDepth else {
                throw AppleHealthExportError(.tooLarge, line: line, "elements nest deeper than \(limits.maximumDepth)")
            }
            if depth == 2 {
                descendants = 0
            } else {
                descendants += 1
                guard descendants <= limits.maximumChildren else {
                    throw AppleHealthExportError(.invalidElement, line: line, "an element has more than \(limits.maximumChildren) children")
                }
            }
            // Buffers of its own, just large enough: ``attributeBytes`` and ``spans`` keep their capacity for the next start tag
            // (shared with the element, they would be copied at its next `removeAll`), and an import holds thousands of elements
            // (a lookup run) that would each keep such a capacity.
            building.append(ExportElement(name: elementName, line: line, attributeBytes: attributeBytes.withUnsafeBufferPointer { Array($0) },
                                          spans: spans.withUnsafeBufferPointer { Array($0) }))
        }
        if selfClosing {
            openNames.removeSubrange(nameStart...)
            try close(handler)
        } else {
            openStarts.append(nameStart)
        }
    }

    /// One attribute, `name = "value"`, appended to ``attributeBytes`` and ``spans``.
    private mutating func attribute() throws(AppleHealthExportError) {
        let nameStart = attributeBytes.count
        if let end = asciiNameEnd() {
            // An ASCII name ended by an ASCII byte in the buffer (every attribute of an export): what readName reads, without
            // its copy into `name`.
            appendToAttributes(position..<end)
            position = end
        } else {
            try readName(tooLong: .attributeTooLong)
            attributeBytes.append(contentsOf: name)
        }
        let valueStart = attributeBytes.count
        let nameLength = valueStart - nameStart
        for span in spans where Int(span.valueStart - span.nameStart) == nameLength {
            let earlier = Int(span.nameStart)
            if (0..<nameLength).allSatisfy({ attributeBytes[earlier + $0] == attributeBytes[nameStart + $0] }) {
                throw malformed("a start tag has the same attribute twice")
            }
        }
        guard spans.count < limits.maximumAttributes else {
            throw AppleHealthExportError(.tooLarge, line: line, "a start tag has more than \(limits.maximumAttributes) attributes")
        }
        _ = skipSpace()
        guard let equals = peek() else { throw truncated("a start tag") }
        guard equals == UInt8(ascii: "=") else { throw malformed("an attribute has no value") }
        position += 1
        _ = skipSpace()
        guard let quote = peek() else { throw truncated("a start tag") }
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { throw malformed("an attribute value is not quoted") }
        position += 1
        while true {
            // A run of plain bytes at once, found without bounds checks.
            let start = position
            let end = buffer.withUnsafeBufferPointer { bytes in
                var end = start
                while end < bytes.count {
                    let byte = bytes[end]
                    if byte == quote || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte < 0x20 || byte >= 0x80 { break }
                    end += 1
                }
                return end
            }
            if end > position {
                appendToAttributes(position..<end)
                position = end
            }
            if attributeBytes.count - valueStart > limits.maximumAttributeLength {
                throw AppleHealthExportError(.attributeTooLong, line: line, "an attribute is longer than \(limits.maximumAttributeLength) bytes")
            }
            guard let byte = peek() else { throw truncated("an attribute value") }
            switch byte {
            case quote:
                position += 1
                spans.append(ExportElement.Span(nameStart: Int32(nameStart), valueStart: Int32(valueStart), valueEnd: Int32(attributeBytes.count)))
                return
            case UInt8(ascii: "&"):
                position += 1
                Self.appendUTF8(try reference(), to: &attributeBytes)
            case UInt8(ascii: "<"):
                throw malformed("an attribute value holds \"<\"")
            case 0x0D:
                // CR LF is one line break, as XML reads line breaks; each becomes a space.
                position += 1
                if peek() == 0x0A {
                    position += 1
                    line += 1
                }
                attributeBytes.append(0x20)
            case 0x0A:
                position += 1
                line += 1
                attributeBytes.append(0x20)
            case 0x09:
                position += 1
                attributeBytes.append(0x20)
            case 0x80...:
                let length = try scalar().length
                appendToAttributes(position..<position + length)
                position += length
            default:
                // A plain byte the run stopped before at the buffer's end: the next run takes it.
                guard byte >= 0x20 else { throw malformed("the file holds a character XML does not allow") }
            }
        }
    }

    /// Appends `buffer[range]` to ``attributeBytes`` through pointers: the generic append of an `ArraySlice` retained and
    /// released the buffer for each name and value (4 % of a re-import's time).
    private mutating func appendToAttributes(_ range: Range<Int>) {
        buffer.withUnsafeBufferPointer { bytes in
            attributeBytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
        }
    }

    /// An end tag (`</` consumed): the name of the innermost open element, optional white space, `>`.
    private mutating func endTag(_ handler: (ExportElement) throws -> Void) throws {
        guard let nameStart = openStarts.last else { throw malformed("an end tag has no start tag") }
        try readName(tooLong: .tooLarge)
        guard openNames[nameStart...].elementsEqual(name) else { throw malformed("an end tag does not match its start tag") }
        _ = skipSpace()
        guard let byte = peek() else { throw truncated("an end tag") }
        guard byte == UInt8(ascii: ">") else { throw malformed("an end tag is not well-formed") }
        position += 1
        openStarts.removeLast()
        openNames.removeSubrange(nameStart...)
        try close(handler)
    }

    /// The innermost element is closed: hands it on, or adds it to its parent.
    private mutating func close(_ handler: (ExportElement) throws -> Void) throws {
        guard let element = building.popLast() else {
            // The root: every element below it was closed before.
            closedRoot = true
            return
        }
        if building.isEmpty {
            try handler(element)
        } else {
            building[building.count - 1].children.append(element)
        }
    }
}
