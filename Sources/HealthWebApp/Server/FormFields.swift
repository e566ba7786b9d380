import Foundation

/// The fields of an `application/x-www-form-urlencoded` body (what the page's forms send).
/// Malformed escapes are kept as written; a repeated name keeps its first value.
public struct FormFields: Sendable, Equatable {
    /// The fields by name.
    public private(set) var values: [String: String] = [:]

    /// Parses a form body.
    public init(_ body: String) {
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if values[name] == nil { values[name] = value }
        }
    }

    /// The value of a field.
    public subscript(_ name: String) -> String? { values[name] }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
