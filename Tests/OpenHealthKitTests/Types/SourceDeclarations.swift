import Foundation

/// Reads the `public static let name = Type(rawValue: "...")` declarations out of a source file in
/// `Sources/OpenHealthKit/Types`, so tests can check the hand-kept `allKnown` lists against them.
struct SourceDeclarations {
    /// One declared constant.
    struct Constant: Equatable {
        let name: String
        let rawValue: String
        let isDeprecated: Bool
    }

    /// Parses the constants declared in `Types/<fileName>`.
    static func constants(inTypesFile fileName: String, typeName: String) throws -> [Constant] {
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Types
            .deletingLastPathComponent()  // OpenHealthKitTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
        let url = packageRoot.appendingPathComponent("Sources/OpenHealthKit/Types/\(fileName)")
        let text = try String(contentsOf: url, encoding: .utf8)
        var result: [Constant] = []
        var previousLine = ""
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            defer {
                if !line.isEmpty && !line.hasPrefix("///") {
                    previousLine = line
                }
            }
            let declPrefix = "public static let "
            let initializer = " = \(typeName)(rawValue: \""
            guard line.hasPrefix(declPrefix), let initRange = line.range(of: initializer) else {
                continue
            }
            let name = String(line[line.index(line.startIndex, offsetBy: declPrefix.count)..<initRange.lowerBound])
            let afterQuote = line[initRange.upperBound...]
            guard let closing = afterQuote.firstIndex(of: "\"") else {
                continue
            }
            result.append(Constant(
                name: name,
                rawValue: String(afterQuote[..<closing]),
                isDeprecated: previousLine.hasPrefix("@available(*, deprecated")
            ))
        }
        return result
    }
}
