/// One problem the validator found, with the FHIRPath-like location of the element
/// (`Bundle.entry[2].resource.status`). Messages name rules and types, never values.
public struct FHIRValidationIssue: Sendable, Hashable, CustomStringConvertible {
    /// How bad a problem is: an error makes the resource invalid, a warning does not.
    public enum Severity: String, Sendable, Hashable, Comparable {
        /// The resource breaks a rule of the definitions.
        case error
        /// Something suspicious that the definitions allow (an unresolved relative reference).
        case warning

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs == .error && rhs == .warning }
    }

    /// Error or warning.
    public var severity: Severity
    /// Where: `Bundle.entry[2].resource.status`.
    public var path: String
    /// What is wrong, without the offending value.
    public var message: String

    /// An issue at `path`.
    public init(_ severity: Severity, _ path: String, _ message: String) {
        self.severity = severity
        self.path = path
        self.message = message
    }

    public var description: String { "\(severity.rawValue): \(path): \(message)" }
}
