import Foundation

/// Numbers as people read and write them: digits, a dot for decimals, commas between thousands.
/// Written never in exponent form; read with one too (`1.7e308`), as people paste it.
public enum NumberText {
    /// `value` with exactly `decimals` digits after the dot (trailing zeros dropped) and, with
    /// `grouping`, commas between thousands: `8,412`, `70.5`, `0.012`. Never in exponent form;
    /// not-a-number and infinities are written as such.
    public static func format(_ value: Double, decimals: Int, grouping: Bool = true) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value < 0 ? "-∞" : "∞") }
        let places = max(0, min(decimals, 20))
        var text = String(format: "%.\(places)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        if text == "-0" { text = "0" }
        guard grouping else { return text }
        let negative = text.hasPrefix("-")
        let unsigned = negative ? String(text.dropFirst()) : text
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = Array(parts[0])
        var grouped = ""
        for (index, digit) in whole.enumerated() {
            if index > 0, (whole.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        if parts.count == 2 { grouped += "." + parts[1] }
        return (negative ? "-" : "") + grouped
    }

    /// How many decimals show about three significant digits of `value` (at least none, at most
    /// twelve): 1,234 and 123 whole, 12.3, 1.23, 0.0123.
    public static func significantDecimals(_ value: Double, digits: Int = 3) -> Int {
        let magnitude = abs(value)
        guard magnitude.isFinite, magnitude > 0 else { return 0 }
        let exponent = Int(floor(log10(magnitude)))
        return max(0, min(12, digits - 1 - exponent))
    }

    /// `value` as a source wrote it: the digits of the shortest text that reads back as the same
    /// double (15.6 stays 15.6, 12345.6 stays 12345.6, 1.0235 keeps its four decimals). A double
    /// with 15 or more significant digits carries binary noise, not the source's precision: one
    /// that is a short number within twelve digits (0.30000000000000004) is written short (0.3),
    /// any other (15.605116822620527, a computed value) to `digits` significant digits (15.61).
    /// Never in exponent form.
    /// - Parameters:
    ///   - value: The number.
    ///   - digits: The significant digits of a number whose shortest text is binary noise.
    ///   - grouping: Whether commas separate thousands.
    public static func written(_ value: Double, significantDigits digits: Int = 4, grouping: Bool = false) -> String {
        guard value.isFinite else { return format(value, decimals: 0) }
        let shortest = shortestDigits(value)
        if shortest.significant < 15 { return format(value, decimals: shortest.decimals, grouping: grouping) }
        if let rounded = Double(String(format: "%.12g", value)) {
            let short = shortestDigits(rounded)
            if short.significant <= 10 { return format(value, decimals: short.decimals, grouping: grouping) }
        }
        return format(value, decimals: significantDecimals(value, digits: digits), grouping: grouping)
    }

    /// The decimals and the significant digits of the shortest text that reads back as `value`
    /// (Swift's description of a double): 12345.6 has 1 and 6, 1.0e-05 has 5 and 1.
    static func shortestDigits(_ value: Double) -> (decimals: Int, significant: Int) {
        let text = "\(abs(value))"
        var mantissa = Substring(text)
        var exponent = 0
        if let exponentIndex = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<exponentIndex]
            exponent = Int(text[text.index(after: exponentIndex)...]) ?? 0
        }
        let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let fraction = parts.count == 2 && parts[1] != "0" ? parts[1] : ""
        let digits = (parts[0] + fraction).drop { $0 == "0" }
        return (max(0, fraction.count - exponent), max(1, digits.count))
    }

    /// Reads a number as people write it: `72`, `70.5`, `-3`, `8,412`, `1,234.5` (commas only
    /// between groups of three digits), `1.7e308`. Nil for anything else, for infinities
    /// (`1e309`), and for a number too small to be told from zero (`1e-400`).
    public static func parse(_ text: String) -> Double? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("+") { trimmed.removeFirst() }
        guard !trimmed.isEmpty else { return nil }
        if trimmed.contains(",") {
            let unsigned = trimmed.hasPrefix("-") ? trimmed.dropFirst() : Substring(trimmed)
            let whole = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let groups = whole.split(separator: ",", omittingEmptySubsequences: false)
            guard let first = groups.first, (1...3).contains(first.count),
                  groups.dropFirst().allSatisfy({ $0.count == 3 }) else { return nil }
            trimmed = trimmed.replacingOccurrences(of: ",", with: "")
        }
        let (mantissa, exponent) = splitExponent(trimmed)
        guard mantissa.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }),
              mantissa.contains(where: \.isNumber),
              exponent.dropFirst().allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-" || $0 == "+") }),
              let value = Double(trimmed), value.isFinite else { return nil }
        // An exponent so small that the number reads as zero (1e-400) is refused, not taken as 0.
        guard value != 0 || !mantissa.contains(where: { $0.isNumber && $0 != "0" }) else { return nil }
        return value
    }

    /// The length of the exponent (`e308`, `E-5`, `e+3`) at the start of `text`, or 0 when it
    /// does not start with one: an `e` or `E`, an optional sign, at least one digit.
    static func exponentLength(_ text: Substring) -> Int {
        var index = text.startIndex
        guard index < text.endIndex, text[index] == "e" || text[index] == "E" else { return 0 }
        index = text.index(after: index)
        if index < text.endIndex, text[index] == "+" || text[index] == "-" { index = text.index(after: index) }
        let digitsStart = index
        while index < text.endIndex, text[index].isASCII, text[index].isNumber { index = text.index(after: index) }
        return index == digitsStart ? 0 : text.distance(from: text.startIndex, to: index)
    }

    /// `text` split before its exponent, if it ends in one: `1.7e308` is `1.7` and `e308`.
    private static func splitExponent(_ text: String) -> (mantissa: Substring, exponent: Substring) {
        guard let index = text.firstIndex(where: { $0 == "e" || $0 == "E" }),
              exponentLength(text[index...]) == text.distance(from: index, to: text.endIndex) else {
            return (Substring(text), "")
        }
        return (text[..<index], text[index...])
    }
}
