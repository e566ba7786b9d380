/// The JSON number grammar as FHIR `decimal` uses it,
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, and an exact numeric normal form for
/// comparing two lexical forms without rounding.
enum DecimalLexicalForm {
    /// A decimal value as sign × digits × 10^exponent, with no leading or trailing zero digits.
    /// Zero has no digits, no sign and exponent 0.
    struct Normalized: Equatable {
        var negative: Bool
        var digits: [UInt8]
        var exponent: Int
    }

    /// Whether `text` matches the grammar.
    static func isValid(_ text: String) -> Bool {
        normalize(text) != nil
    }

    /// The exact numeric normal form of `text`, or `nil` if it does not match the grammar.
    static func normalize(_ text: String) -> Normalized? {
        var text = text
        return text.withUTF8 { normalize($0) }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    private static func normalize(_ bytes: UnsafeBufferPointer<UInt8>) -> Normalized? {
        let end = bytes.count
        var index = 0
        var negative = false
        if index < end && bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < end, isDigit(bytes[index]) else { return nil }
        var digits: [UInt8] = []
        var exponent = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < end && isDigit(bytes[index]) { return nil }
        } else {
            while index < end && isDigit(bytes[index]) {
                digits.append(bytes[index] &- UInt8(ascii: "0"))
                index += 1
            }
        }
        if index < end && bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < end && isDigit(bytes[index]) {
                let digit = bytes[index] &- UInt8(ascii: "0")
                if !(digits.isEmpty && digit == 0) { digits.append(digit) }
                exponent -= 1
                index += 1
            }
            if index == fractionStart { return nil }
        }
        if index < end && bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var exponentNegative = false
            if index < end && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            var written = 0
            while index < end && isDigit(bytes[index]) {
                // Saturate far beyond any meaningful exponent instead of overflowing.
                if written < 1_000_000_000_000_000 {
                    written = written * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
                }
                index += 1
            }
            if index == exponentStart { return nil }
            exponent += exponentNegative ? -written : written
        }
        guard index == end else { return nil }
        // Drop trailing zeros into the exponent; zero has no digits and no sign.
        while let last = digits.last, last == 0 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { return Normalized(negative: false, digits: [], exponent: 0) }
        return Normalized(negative: negative, digits: digits, exponent: exponent)
    }
}
