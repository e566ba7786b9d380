import FHIRCore
import Foundation

/// Checks a primitive's lexical form against its FHIR type. Dates, times, numbers and base64 use the
/// FHIRCore parsers (which implement the definitions' regexes exactly, with calendar checks on top,
/// and never backtrack); the other types use the regexes from the definitions, compiled once.
enum PrimitivePattern {
    static func matches(_ text: String, type: String, regexes: [String: String]) -> Bool {
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
        default:
            guard let regex = compiled[type] else { return true }
            let range = NSRange(text.startIndex..., in: text)
            return regex.firstMatch(in: text, options: [.anchored], range: range)?.range == range
        }
    }

    /// The regexes of the string-like types, anchored at both ends. FHIR's regexes use the XML
    /// Schema / Java meaning of `\s` (space, tab, CR, LF, VT, FF only); ICU's `\s` also matches
    /// Unicode spaces such as U+00A0, which would reject valid text, so the classes are spelled out.
    private static let compiled: [String: NSRegularExpression] = {
        var result: [String: NSRegularExpression] = [:]
        for (type, pattern) in ElementTable.r4.regexes {
            let javaPattern = pattern
                .replacingOccurrences(of: #"\S"#, with: #"[^ \t\n\x0B\f\r]"#)
                .replacingOccurrences(of: #"\s"#, with: #"[ \t\n\x0B\f\r]"#)
            result[type] = try? NSRegularExpression(pattern: "^(?:\(javaPattern))$")
        }
        return result
    }()

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
