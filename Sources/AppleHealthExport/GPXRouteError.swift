import Foundation

/// Why a workout route's GPX file could not be read. Messages name the place in the file,
/// never a value from it: a route is health data.
public struct GPXRouteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Equatable, Sendable {
        /// The XML is not well-formed, ends early, or its root is not `gpx`.
        case malformedXML
        /// The file has a document type declaration (entities, external DTDs): GPX files never do.
        case documentType
        /// A track point lacks a coordinate or a time, or has one that cannot be read or is not on Earth.
        case invalidPoint
        /// The file has more points, deeper nesting or longer text than a route can.
        case tooLarge
        /// The file has no track point.
        case empty
    }

    /// What went wrong.
    public let kind: Kind
    /// The line in the GPX file where it was found, when known.
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
        if let line { return "GPX line \(line): \(detail)" }
        return "GPX: \(detail)"
    }
}
