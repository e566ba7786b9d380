/// The prolog of an export.xml, everything before the root element's start tag, read by a
/// tokenizer that follows XML 1.0's grammar (section 2.8): an optional UTF-8 byte order mark
/// and XML declaration, then comments, processing instructions and white space, and at most
/// one document type declaration with its internal subset to its end — element, attribute-list
/// and notation declarations (their quoted literals may hold `>` or `]`), comments and
/// processing instructions — however far into the file it ends, up to ``maximumSize`` bytes.
///
/// The importer needs nothing from the document type declaration, and Foundation's XMLParser on
/// Linux crashes on `ATTLIST` declarations (`#REQUIRED`, `#IMPLIED`), which every Apple export's
/// DTD has: ``PrologStrippedStream`` blanks the declaration's bytes before the parser sees them.
///
/// Refused with an ``AppleHealthExportError``:
/// - entity declarations, parameter-entity references and an external DTD (`SYSTEM`, `PUBLIC`):
///   `entityDeclaration`;
/// - an XML declaration naming an encoding other than UTF-8 (exports are UTF-8, and the
///   tokenizer reads bytes as UTF-8 does), and a root element other than `HealthData`: `notAnExport`;
/// - a prolog that is not well-formed (text before the root element, `--` in a comment, a second
///   document type declaration, an XML declaration after the start), or a file that ends inside it: `malformedXML`;
/// - a prolog longer than ``maximumSize``: `tooLarge`.
struct ExportProlog: Equatable, Sendable {
    /// The most bytes the prolog may have. Apple's own is about 11 KB (its DTD); the cap leaves
    /// room for any comment or declaration a real export has, and bounds what is held before parsing.
    static let maximumSize = 8 << 20

    /// Where the root element's start tag (`<HealthData`) begins: the prolog's length.
    let rootOffset: Int
    /// The document type declaration, `<!DOCTYPE` to its closing `>`, when there is one.
    let documentType: Range<Int>?

    /// Reads the prolog at the start of `bytes`.
    /// - Parameters:
    ///   - bytes: the file's first bytes.
    ///   - isComplete: whether `bytes` is the whole file (otherwise more may follow).
    /// - Returns: the prolog, or nil when `bytes` ends inside it and more may follow.
    static func read(_ bytes: [UInt8], isComplete: Bool) throws(AppleHealthExportError) -> ExportProlog? {
        var tokenizer = Tokenizer(bytes: bytes)
        do {
            return try tokenizer.prolog()
        } catch {
            switch error {
            case .refused(let error):
                throw error
            case .ended(let inside):
                guard isComplete else { return nil }
                guard let inside else {
                    throw AppleHealthExportError(.notAnExport, "the file ends before a HealthData element: not an Apple Health export.xml")
                }
                throw AppleHealthExportError(.malformedXML, line: tokenizer.line, "the file ends inside \(inside), before the HealthData element")
            }
        }
    }

    /// `bytes` with the document type declaration's bytes made spaces, line breaks kept (so the
    /// parser's line numbers stay right).
    func blankingDocumentType(of bytes: [UInt8]) -> [UInt8] {
        guard let documentType else { return bytes }
        var bytes = bytes
        for index in documentType where index < bytes.count && bytes[index] != UInt8(ascii: "\n") && bytes[index] != UInt8(ascii: "\r") {
            bytes[index] = UInt8(ascii: " ")
        }
        return bytes
    }
}

/// Why the tokenizer stopped before the root element.
private enum PrologFailure: Error {
    /// The bytes end inside the prolog; the construct it ended in, nil between constructs.
    case ended(String?)
    /// The prolog is refused.
    case refused(AppleHealthExportError)
}

/// A cursor over the prolog's bytes.
private struct Tokenizer {
    let bytes: [UInt8]
    var index = 0
    /// The construct being read, for the error when the bytes end inside it.
    var inside: String?

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The line the cursor is on (for errors).
    var line: Int {
        1 + bytes[..<min(index, bytes.count)].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Bytes that end a name (of an element, a PI target, a declaration keyword's argument).
    static func endsName(_ byte: UInt8) -> Bool {
        isSpace(byte) || [UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "<"), UInt8(ascii: "?"), UInt8(ascii: "="),
                          UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "\""), UInt8(ascii: "'")].contains(byte)
    }

    func refuse(_ kind: AppleHealthExportError.Kind, _ detail: String) -> PrologFailure {
        .refused(AppleHealthExportError(kind, line: line, detail))
    }

    func malformed(_ detail: String) -> PrologFailure {
        refuse(.malformedXML, detail)
    }

    /// The byte `offset` after the cursor.
    func peek(_ offset: Int = 0) throws(PrologFailure) -> UInt8 {
        guard index + offset < bytes.count else { throw .ended(inside) }
        return bytes[index + offset]
    }

    /// Whether the bytes at the cursor start with `literal` (throws when they end while still matching).
    func at(_ literal: String) throws(PrologFailure) -> Bool {
        var offset = 0
        for byte in literal.utf8 {
            guard index + offset < bytes.count else { throw .ended(inside) }
            if bytes[index + offset] != byte { return false }
            offset += 1
        }
        return true
    }

    /// Whether the bytes at the cursor start with one of `literals`.
    func atAny(_ literals: String...) throws(PrologFailure) -> Bool {
        for literal in literals where try at(literal) { return true }
        return false
    }

    mutating func skipSpace() {
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
    }

    /// Moves the cursor just past the next `terminator`.
    mutating func skip(past terminator: String) throws(PrologFailure) {
        let pattern = Array(terminator.utf8)
        guard let first = pattern.first else { return }
        while index + pattern.count <= bytes.count {
            if bytes[index] == first, bytes[index..<index + pattern.count].elementsEqual(pattern) {
                index += pattern.count
                return
            }
            index += 1
        }
        throw .ended(inside)
    }

    /// The name at the cursor (possibly empty), which ends at white space or a delimiter.
    mutating func name() throws(PrologFailure) -> ArraySlice<UInt8> {
        let start = index
        while try !Self.endsName(peek()) { index += 1 }
        return bytes[start..<index]
    }

    /// XML declaration, Misc, document type declaration, Misc, up to the root element.
    mutating func prolog() throws(PrologFailure) -> ExportProlog {
        if try at("\u{FEFF}") { index += 3 }
        if try at("<?xml"), try Self.isSpace(peek(5)) { try xmlDeclaration() }
        var documentType: Range<Int>?
        while true {
            skipSpace()
            inside = nil
            if try at("<!--") {
                try comment()
            } else if try at("<?") {
                try processingInstruction()
            } else if try at("<!DOCTYPE") {
                guard documentType == nil else { throw malformed("the document has a second document type declaration") }
                let start = index
                try documentTypeDeclaration()
                documentType = start..<index
            } else if try at("<!") {
                throw malformed("markup that is neither a comment nor a document type declaration comes before the root element")
            } else if try peek() == UInt8(ascii: "<") {
                let start = index
                index += 1
                inside = "the root element's name"
                guard try name().elementsEqual("HealthData".utf8) else {
                    throw refuse(.notAnExport, "the root element is not HealthData: not an Apple Health export.xml")
                }
                return ExportProlog(rootOffset: start, documentType: documentType)
            } else {
                throw malformed("text comes before the root element")
            }
        }
    }

    /// `<?xml version="1.0" encoding="UTF-8"?>`: pseudo-attributes with plain values; the
    /// encoding, if named, must be UTF-8 (or its subset US-ASCII).
    mutating func xmlDeclaration() throws(PrologFailure) {
        inside = "the XML declaration"
        index += 5
        var names: Set<String> = []
        while true {
            skipSpace()
            if try at("?>") {
                index += 2
                break
            }
            let name = String(decoding: try name(), as: UTF8.self)
            guard ["version", "encoding", "standalone"].contains(name), names.insert(name).inserted else {
                throw malformed("the XML declaration is not well-formed")
            }
            skipSpace()
            guard try peek() == UInt8(ascii: "=") else { throw malformed("the XML declaration is not well-formed") }
            index += 1
            skipSpace()
            let quote = try peek()
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { throw malformed("the XML declaration is not well-formed") }
            index += 1
            let start = index
            while try peek() != quote {
                let byte = try peek()
                guard (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                        || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") else {
                    throw malformed("the XML declaration is not well-formed")
                }
                index += 1
            }
            let value = String(decoding: bytes[start..<index], as: UTF8.self)
            index += 1
            if name == "encoding", !["utf-8", "utf8", "us-ascii", "ascii"].contains(value.lowercased()) {
                throw refuse(.notAnExport, "the XML declaration names an encoding other than UTF-8, which exports never use")
            }
        }
        guard names.contains("version") else { throw malformed("the XML declaration has no version") }
    }

    /// `<!-- … -->`, with no `--` inside.
    mutating func comment() throws(PrologFailure) {
        let outer = inside
        inside = "a comment"
        index += 4
        try skip(past: "--")
        guard try peek() == UInt8(ascii: ">") else { throw malformed("a comment holds \"--\"") }
        index += 1
        inside = outer
    }

    /// `<?target … ?>`; the target may not be `xml` (a declaration after the start).
    mutating func processingInstruction() throws(PrologFailure) {
        let outer = inside
        inside = "a processing instruction"
        index += 2
        let target = try name()
        guard !target.isEmpty else { throw malformed("a processing instruction has no target") }
        if String(decoding: target, as: UTF8.self).lowercased() == "xml" {
            throw malformed("an XML declaration comes after the start of the file")
        }
        try skip(past: "?>")
        inside = outer
    }

    /// `<!DOCTYPE HealthData [ … ]>`: a name, no external identifier, an optional internal subset.
    mutating func documentTypeDeclaration() throws(PrologFailure) {
        inside = "the document type declaration"
        index += 9
        guard try Self.isSpace(peek()) else { throw malformed("the document type declaration is not well-formed") }
        skipSpace()
        guard try !name().isEmpty else { throw malformed("the document type declaration has no name") }
        skipSpace()
        if try atAny("SYSTEM", "PUBLIC") {
            throw refuse(.entityDeclaration, "the document type names an external DTD, which exports never do")
        }
        if try peek() == UInt8(ascii: "[") {
            index += 1
            try internalSubset()
            skipSpace()
        }
        guard try peek() == UInt8(ascii: ">") else { throw malformed("the document type declaration is not well-formed") }
        index += 1
    }

    /// The declarations between `[` and `]`.
    mutating func internalSubset() throws(PrologFailure) {
        while true {
            skipSpace()
            if try peek() == UInt8(ascii: "]") {
                index += 1
                return
            } else if try peek() == UInt8(ascii: "%") {
                throw refuse(.entityDeclaration, "the document type refers to a parameter entity, which exports never do")
            } else if try at("<!--") {
                try comment()
            } else if try at("<?") {
                try processingInstruction()
            } else if try at("<!ENTITY") {
                throw refuse(.entityDeclaration, "the document declares entities, which exports never do")
            } else if try atAny("<!ELEMENT", "<!ATTLIST", "<!NOTATION") {
                try markupDeclaration()
            } else {
                throw malformed("the document type declaration holds something other than declarations")
            }
        }
    }

    /// `<!ELEMENT …>`, `<!ATTLIST …>`, `<!NOTATION …>` to their `>`, past quoted literals.
    mutating func markupDeclaration() throws(PrologFailure) {
        let outer = inside
        inside = "a declaration of the document type"
        index += 2
        while true {
            let byte = try peek()
            switch byte {
            case UInt8(ascii: ">"):
                index += 1
                inside = outer
                return
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                index += 1
                while try peek() != byte { index += 1 }
                index += 1
            case UInt8(ascii: "%"):
                throw refuse(.entityDeclaration, "the document type refers to a parameter entity, which exports never do")
            case UInt8(ascii: "<"):
                throw malformed("a declaration of the document type is not well-formed")
            default:
                index += 1
            }
        }
    }
}
