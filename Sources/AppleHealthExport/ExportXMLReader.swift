import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One element of the export with its attributes and children (a `Record` with its
/// `MetadataEntry` children, a `Workout` with its events and statistics…).
struct ExportElement: Sendable {
    var name: String
    var attributes: [String: String]
    var line: Int
    var children: [ExportElement] = []

    subscript(_ attribute: String) -> String? { attributes[attribute] }
}

/// Reads an export.xml as a stream: a SAX parser hands each child of `HealthData` to a handler
/// once the element is closed, so memory holds one top-level element at a time whatever the
/// file's size.
///
/// Refused: DTDs declaring entities or naming an external subset (Apple's export has an
/// internal subset of `ELEMENT` and `ATTLIST` declarations only; ``ExportProlog`` reads it and
/// ``PrologStrippedStream`` blanks it before the parser runs), attribute values longer than
/// ``maximumAttributeLength``, top-level elements with more than ``maximumChildren``
/// descendants, and XML that is not well-formed or ends early.
struct ExportXMLReader {
    /// The longest attribute value accepted (Apple's longest, device descriptions, are a few
    /// hundred characters).
    var maximumAttributeLength = 64 * 1024
    /// The most descendants one top-level element may have.
    var maximumChildren = 100_000

    /// Parses the stream, calling `handler` with each closed child of `HealthData`. A handler
    /// error stops the parse and is rethrown.
    func read(_ stream: InputStream, handler: @escaping (ExportElement) throws -> Void) throws {
        let parser = XMLParser(stream: stream)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        let delegate = ReaderDelegate(reader: self, handler: handler)
        parser.delegate = delegate
        let finished = parser.parse()
        if let error = delegate.failure { throw error }
        guard finished else {
            throw AppleHealthExportError(.malformedXML, line: parser.lineNumber > 0 ? parser.lineNumber : nil,
                                         "the XML is not well-formed or ends early")
        }
        guard delegate.sawRoot else {
            throw AppleHealthExportError(.notAnExport, "no HealthData element: not an Apple Health export.xml")
        }
        guard delegate.closedRoot else {
            throw AppleHealthExportError(.malformedXML, line: parser.lineNumber, "the file ends before the HealthData element does")
        }
    }
}

private final class ReaderDelegate: NSObject, XMLParserDelegate {
    let reader: ExportXMLReader
    let handler: (ExportElement) throws -> Void
    /// The first error, which stops the parse.
    var failure: (any Error)?
    var sawRoot = false
    var closedRoot = false
    /// The open elements below `HealthData`, outermost first.
    private var stack: [ExportElement] = []
    private var descendants = 0
    private var depth = 0

    init(reader: ExportXMLReader, handler: @escaping (ExportElement) throws -> Void) {
        self.reader = reader
        self.handler = handler
    }

    private func fail(_ parser: XMLParser, _ error: any Error) {
        guard failure == nil else { return }
        failure = error
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
                attributes attributeDict: [String: String] = [:]) {
        guard failure == nil else { return }
        for (name, value) in attributeDict where value.utf8.count > reader.maximumAttributeLength || name.utf8.count > 1024 {
            fail(parser, AppleHealthExportError(.attributeTooLong, line: parser.lineNumber,
                                                "an attribute of \(elementName.prefix(64)) is longer than \(reader.maximumAttributeLength) bytes"))
            return
        }
        depth += 1
        if depth == 1 {
            guard elementName == "HealthData" else {
                fail(parser, AppleHealthExportError(.notAnExport, line: parser.lineNumber, "the root element is not HealthData"))
                return
            }
            sawRoot = true
            return
        }
        if depth == 2 { descendants = 0 } else {
            descendants += 1
            if descendants > reader.maximumChildren {
                fail(parser, AppleHealthExportError(.invalidElement, line: parser.lineNumber,
                                                    "an element has more than \(reader.maximumChildren) children"))
                return
            }
        }
        // Native copies: the parser's strings may point into buffers it reuses once this call returns.
        var attributes: [String: String] = [:]
        attributes.reserveCapacity(attributeDict.count)
        for (name, value) in attributeDict { attributes[Self.copy(name)] = Self.copy(value) }
        stack.append(ExportElement(name: Self.copy(elementName), attributes: attributes, line: parser.lineNumber))
    }

    private static func copy(_ text: String) -> String {
        String(decoding: Array(text.utf8), as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard failure == nil else { return }
        depth -= 1
        if depth == 0 {
            closedRoot = true
            return
        }
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            do { try handler(element) } catch { fail(parser, error) }
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        fail(parser, AppleHealthExportError(.entityDeclaration, line: parser.lineNumber, "the document declares entities, which exports never do"))
    }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
        fail(parser, AppleHealthExportError(.entityDeclaration, line: parser.lineNumber, "the document declares entities, which exports never do"))
    }

    func parser(_ parser: XMLParser, foundUnparsedEntityDeclarationWithName name: String, publicID: String?, systemID: String?,
                notationName: String?) {
        fail(parser, AppleHealthExportError(.entityDeclaration, line: parser.lineNumber, "the document declares entities, which exports never do"))
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        fail(parser, AppleHealthExportError(.malformedXML, line: parser.lineNumber > 0 ? parser.lineNumber : nil,
                                            "the XML is not well-formed or ends early"))
    }
}
