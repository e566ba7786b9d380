/// The response directives of `Cache-Control` (RFC 9111 §5.2.2) that a private cache acts on.
///
/// Shared-cache directives (`s-maxage`, `proxy-revalidate`, `private`, `public`) and unknown ones
/// are ignored. A `max-age` that is not a non-negative integer makes the response stale at once,
/// as RFC 9111 §4.2.1 asks; when `max-age` is repeated the smallest value wins.
struct CacheControl: Sendable, Equatable {
    /// `max-age`, in seconds.
    var maxAge: Int?
    /// `no-store`: the response is not kept at all.
    var noStore = false
    /// `no-cache` (with or without field names): the response is revalidated before every use.
    var noCache = false
    /// `must-revalidate`: once stale, the response is revalidated before use.
    var mustRevalidate = false

    /// Reads every `Cache-Control` field value of a response (they form one comma-separated list).
    init(fieldValues: [String]) {
        for directive in CacheControl.directives(fieldValues.joined(separator: ",")) {
            switch directive.name {
            case "max-age":
                let seconds = directive.value.flatMap { value -> Int? in
                    guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                        return nil
                    }
                    // A delta-seconds too large for Int is "infinity" (RFC 9111 §1.2.2).
                    return Int(value) ?? Int(Int32.max)
                } ?? 0
                maxAge = min(maxAge ?? seconds, seconds)
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "must-revalidate": mustRevalidate = true
            default: break
            }
        }
    }

    /// Splits a directive list on commas outside quoted strings; names are lower-cased, values
    /// unquoted.
    private static func directives(_ text: String) -> [(name: String, value: String?)] {
        var result: [(name: String, value: String?)] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        func finish() {
            let trimmed = current.trimmingSpaces()
            current = ""
            guard !trimmed.isEmpty else { return }
            if let equals = trimmed.firstIndex(of: "=") {
                let name = String(trimmed[..<equals]).trimmingSpaces().lowercased()
                var value = String(trimmed[trimmed.index(after: equals)...]).trimmingSpaces()
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast()).replacingEscapes()
                }
                result.append((name, value))
            } else {
                result.append((trimmed.lowercased(), nil))
            }
        }
        for character in text {
            if escaped {
                escaped = false
            } else if inQuotes && character == "\\" {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if character == "," && !inQuotes {
                finish()
                continue
            }
            current.append(character)
        }
        finish()
        return result
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }

    /// The string with quoted-pair escapes (`\x`) replaced by the escaped character.
    fileprivate func replacingEscapes() -> String {
        var result = ""
        var escaped = false
        for character in self {
            if !escaped && character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            result.append(character)
        }
        return result
    }
}
