extension JSONValue {
    /// The RFC 8785 JSON Canonicalization Scheme (JCS) form of the value, as UTF-8: object
    /// members sorted by the UTF-16 code units of their names, no whitespace, strings escaped as
    /// ECMAScript `JSON.stringify` escapes them, numbers in ECMAScript's shortest round-trip form.
    ///
    /// Equal JSON gives equal bytes whatever the member order or number spelling, which is what
    /// hashes and signatures over JSON need (RFC 7638 JWK thumbprints are this form of the
    /// required members).
    public func canonicalized() -> [UInt8] {
        var writer = JSONWriter(style: .compact)
        writer.canonicalValue(self)
        return writer.bytes
    }

    /// ECMAScript `Number::toString` of a JSON number literal's `Double` value (RFC 8785
    /// §3.2.2.3): `1e21` for `1E21`, `-2500` for `-2.5E3`, `0` for `-0`. Text that is not a finite
    /// number is returned unchanged.
    package static func ecmaScriptNumber(_ literal: String) -> String {
        guard let value = Double(literal), value.isFinite else { return literal }
        if value == 0 { return "0" }
        // Swift's description is the shortest round-trip decimal; take its digits and exponent.
        let negative = value < 0
        let text = "\(abs(value))"
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exponent = Int(text[text.index(after: e)...]) ?? 0
        }
        var digits = mantissa.filter { $0 != "." }
        let pointPosition = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
        // value = 0.digits × 10^n
        var n = pointPosition + exponent
        while digits.first == "0" {
            digits.removeFirst()
            n -= 1
        }
        while digits.last == "0" { digits.removeLast() }
        let k = digits.count
        var result: String
        if k <= n && n <= 21 {
            result = digits + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            result = String(digits.prefix(n)) + "." + String(digits.dropFirst(n))
        } else if -6 < n && n <= 0 {
            result = "0." + String(repeating: "0", count: -n) + digits
        } else {
            let exponentText = n - 1 >= 0 ? "+\(n - 1)" : "\(n - 1)"
            result = String(digits.prefix(1)) + (k > 1 ? "." + String(digits.dropFirst()) : "") + "e" + exponentText
        }
        return negative ? "-" + result : result
    }
}

extension JSONWriter {
    /// Writes a tree in its RFC 8785 canonical form (the writer's string escaping is already
    /// `JSON.stringify`'s).
    mutating func canonicalValue(_ value: JSONValue) {
        switch value {
        case .null, .bool, .string:
            self.value(value)
        case .number(let text):
            number(JSONValue.ecmaScriptNumber(text))
        case .array(let elements):
            beginArray()
            for element in elements { canonicalValue(element) }
            endArray()
        case .object(let object):
            beginObject()
            for member in object.members.sorted(by: { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }) {
                key(member.key)
                canonicalValue(member.value)
            }
            endObject()
        }
    }
}
