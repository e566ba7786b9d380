import Foundation

/// Numbers as people read and write them: digits, a dot for decimals, commas between thousands,
/// never an exponent.
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

    /// `value` to `digits` significant digits at most, as a source's number is shown: the digits
    /// it was written with (15.6 stays 15.6, 120 stays 120) but not the binary noise of a double
    /// (15.605116822620527 becomes 15.61). Never in exponent form.
    public static func written(_ value: Double, significantDigits digits: Int = 4, grouping: Bool = false) -> String {
        guard value.isFinite else { return format(value, decimals: 0) }
        var decimals = 0
        // The decimals the shortest representation of the double has (what the source wrote).
        let shortest = "\(value)"
        if let exponentIndex = shortest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            let mantissa = shortest[..<exponentIndex]
            let exponent = Int(shortest[shortest.index(after: exponentIndex)...]) ?? 0
            let mantissaDecimals = mantissa.split(separator: ".").dropFirst().first.map { $0.count } ?? 0
            decimals = max(0, mantissaDecimals - exponent)
        } else if let dot = shortest.firstIndex(of: ".") {
            let fraction = shortest[shortest.index(after: dot)...]
            decimals = fraction == "0" ? 0 : fraction.count
        }
        return format(value, decimals: min(decimals, significantDecimals(value, digits: digits)), grouping: grouping)
    }

    /// Reads a number as people write it: `72`, `70.5`, `-3`, `8,412`, `1,234.5` (commas only
    /// between groups of three digits). Nil for anything else, and for infinities.
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
        guard trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }),
              let value = Double(trimmed), value.isFinite else { return nil }
        return value
    }
}
