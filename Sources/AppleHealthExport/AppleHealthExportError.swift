import Foundation

/// Why an Apple Health export could not be imported. Messages name the place in the file, never
/// a value from it: an export is health data.
public struct AppleHealthExportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Equatable, Sendable {
        /// The file could not be opened or read.
        case unreadable
        /// The file is not an Apple Health export (its root element is not `HealthData`).
        case notAnExport
        /// The document declares entities or refers to an external DTD: refused, as entity
        /// expansion can make a small file huge.
        case entityDeclaration
        /// An attribute value is longer than the importer accepts.
        case attributeTooLong
        /// The XML is not well-formed, or the file ends before the document does.
        case malformedXML
        /// An element the importer understands lacks an attribute it needs or has one it cannot read.
        case invalidElement
        /// The zip archive cannot be read, or an entry is damaged (size or checksum).
        case malformedArchive
        /// An entry of the zip archive would inflate to more than the limits allow (a zip bomb),
        /// or to more than it declares.
        case unsafeArchive
        /// A file has more elements, deeper nesting or longer text than the importer accepts
        /// (a workout route's GPX file with more points than a route can have).
        case tooLarge
        /// The export's `Me` date of birth is not the store owner's (``AppleHealthImporter/expectedPerson``):
        /// it is another person's export.
        case otherPerson
    }

    /// What went wrong.
    public let kind: Kind
    /// The line in the XML where it was found, when known.
    public let line: Int?
    /// A description without values from the file.
    public let detail: String

    /// Creates an error.
    public init(_ kind: Kind, line: Int? = nil, _ detail: String) {
        self.kind = kind
        self.line = line
        self.detail = detail
    }

    /// The error as one line.
    public var description: String {
        if let line { return "line \(line): \(detail)" }
        return detail
    }
}
