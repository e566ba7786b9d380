/// One problem the validator found, with the FHIRPath-like location of the element
/// (`Bundle.entry[2].resource.status`). Messages name rules and types, never values.
public struct FHIRValidationIssue: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Comparable {
        case error, warning

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs == .error && rhs == .warning }
    }

    public var severity: Severity
    public var path: String
    public var message: String

    public init(_ severity: Severity, _ path: String, _ message: String) {
        self.severity = severity
        self.path = path
        self.message = message
    }

    public var description: String { "\(severity.rawValue): \(path): \(message)" }
}
