import Foundation

/// Checks a primitive's lexical form against its FHIR type. Dates, times, numbers and base64 use the
/// FHIRCore parsers (which implement the definitions' regexes exactly, with calendar checks on top,
/// and never backtrack); the other types use the regexes from the definitions, compiled once.
enum PrimitivePattern {
    static func matches(_ text: String, type: String, compiled: [String: NSRegularExpression]) -> Bool {
        switch type {
        case "date": return (try? FHIRDate(fhirJSON: .string(text))) != nil
        case "dateTime": return (try? DateTime(fhirJSON: .string(text))) != nil
        case "instant": return (try? Instant(fhirJSON: .string(text))) != nil
        case "time": return (try? FHIRTime(fhirJSON: .string(text))) != nil
        case "decimal": return (try? FHIRDecimal(fhirJSON: .number(text))) != nil
        case "integer": return (try? FHIRInteger(fhirJSON: .number(text))) != nil
        case "positiveInt": return (try? FHIRPositiveInteger(fhirJSON: .number(text))) != nil
        case "unsignedInt": return (try? FHIRUnsignedInteger(fhirJSON: .number(text))) != nil
        case "base64Binary": return isBase64(text)
        case "xhtml": return !text.isEmpty
        case "string", "markdown": return isString(text)
        case "code": return isCode(text)
        case "id": return isID(text)
        case "uri", "url", "canonical": return !text.utf8.contains(where: isJavaSpace)
        case "oid": return isOID(text)
        case "uuid": return isUUID(text)
        default:
            guard let regex = compiled[type] else { return true }
            let range = NSRange(text.startIndex..., in: text)
            return regex.firstMatch(in: text, options: [.anchored], range: range)?.range == range
        }
    }

    /// The regexes of the string-like types, anchored at both ends. FHIR's regexes use the XML
    /// Schema / Java meaning of `\s` (space, tab, CR, LF, VT, FF only); ICU's `\s` also matches
    /// Unicode spaces such as U+00A0, which would reject valid text, so the classes are spelled out.
    static func compile(_ regexes: [String: String]) -> [String: NSRegularExpression] {
        var result: [String: NSRegularExpression] = [:]
        for (type, pattern) in regexes {
            let javaPattern = pattern
                .replacingOccurrences(of: #"\S"#, with: #"[^ \t\n\x0B\f\r]"#)
                .replacingOccurrences(of: #"\s"#, with: #"[ \t\n\x0B\f\r]"#)
            result[type] = try? NSRegularExpression(pattern: "^(?:\(javaPattern))$")
        }
        return result
    }

    // The string-like types, checked byte by byte exactly as their regexes say (with Java's
    // `\s`, as above): the regex engine cost a fifth of validating a Bundle. `FHIRElementTable.regexMatches` keeps
    // the regexes, and a property test holds these checks to them.

    /// Java's `\s`: space, tab, LF, VT, FF, CR. These bytes never occur inside a multi-byte UTF-8
    /// sequence, so checking bytes is checking characters.
    static func isJavaSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// `string`, `markdown`: `[ \r\n\t\S]+`: not empty, and no VT or FF.
    static func isString(_ text: String) -> Bool {
        !text.isEmpty && !text.utf8.contains { $0 == 0x0B || $0 == 0x0C }
    }

    /// `code`: `[^\s]+(\s[^\s]+)*`: not empty, no space at either end, never two in a row.
    static func isCode(_ text: String) -> Bool {
        var previousWasSpace = true
        for byte in text.utf8 {
            let space = isJavaSpace(byte)
            if space && previousWasSpace { return false }
            previousWasSpace = space
        }
        return !previousWasSpace
    }

    /// `id`: `[A-Za-z0-9\-\.]{1,64}`.
    static func isID(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard (1...64).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."): return true
            default: return false
            }
        }
    }

    /// `oid`: `urn:oid:[0-2](\.(0|[1-9][0-9]*))+`.
    static func isOID(_ text: String) -> Bool {
        let prefix = "urn:oid:".utf8
        let bytes = Array(text.utf8)
        guard bytes.count > prefix.count + 2, bytes.starts(with: prefix) else { return false }
        var index = prefix.count
        guard (UInt8(ascii: "0")...UInt8(ascii: "2")).contains(bytes[index]) else { return false }
        index += 1
        var arcs = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "."), index + 1 < bytes.count else { return false }
            index += 1
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > start, bytes[start] != UInt8(ascii: "0") || index == start + 1 else { return false }
            arcs += 1
        }
        return arcs > 0
    }

    /// `uuid`: `urn:uuid:` then lowercase hex in groups of 8, 4, 4, 4 and 12.
    static func isUUID(_ text: String) -> Bool {
        let prefix = "urn:uuid:".utf8
        let bytes = Array(text.utf8)
        guard bytes.count == prefix.count + 36, bytes.starts(with: prefix) else { return false }
        for (offset, byte) in bytes.dropFirst(prefix.count).enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) else {
                    return false
                }
            }
        }
        return true
    }

    /// base64 with optional whitespace, as the R4 regex allows, checked without backtracking.
    static func isBase64(_ text: String) -> Bool {
        var count = 0
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): continue
            case UInt8(ascii: "="): padding += 1; count += 1
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                if padding > 0 { return false }
                count += 1
            default: return false
            }
        }
        return count > 0 && count % 4 == 0 && padding <= 2
    }
}
