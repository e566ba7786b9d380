extension SHCJSONValue {
    /// The RFC 8785 JSON Canonicalization Scheme (JCS) form: object members sorted by the UTF-16
    /// code units of their names, no whitespace, strings escaped as ECMAScript `JSON.stringify`
    /// does, numbers in the ECMAScript shortest round-trip form.
    public func canonicalized() -> [UInt8] {
        var output: [UInt8] = []
        writeCanonical(into: &output)
        return output
    }

    private func writeCanonical(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): output.append(contentsOf: SHCJSONValue.ecmaScriptNumber(text).utf8)
        case .string(let value): SHCJSONValue.writeString(value, into: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (position, value) in values.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                value.writeCanonical(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }
            for (position, member) in sorted.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                SHCJSONValue.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                member.value.writeCanonical(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// ECMAScript `Number::toString` of the literal's double value (RFC 8785 §3.2.2.3).
    static func ecmaScriptNumber(_ literal: String) -> String {
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
