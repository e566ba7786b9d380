/// Why a sample file was refused: the line (the CSV row, counting the header as line 1) and what
/// is wrong with it. The message never repeats the line's values.
public struct SampleFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line (for CSV, the record) the problem is on.
    public let line: Int
    /// What is wrong.
    public let reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "line \(line): \(reason)" }
}
