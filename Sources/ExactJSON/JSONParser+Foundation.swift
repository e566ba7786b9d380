import Foundation

extension JSONParser {
    /// Parses a complete JSON document from UTF-8 encoded data.
    /// - Throws: ``JSONParseError`` with the position and reason of the first problem.
    public static func parse(_ data: Data, maximumDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        let result = data.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parse(buffer, maximumDepth: maximumDepth) }
        }
        return try result.get()
    }
}
