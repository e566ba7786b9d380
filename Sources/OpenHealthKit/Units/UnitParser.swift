/// The unit-string grammar: a recursive-descent parser producing a normalized
/// ``UnitFactorization``.
///
/// ```
/// unit      = "()" | quotient                       (surrounding spaces ignored)
/// quotient  = product { "/" product }               (each further "/" divides again)
/// product   = power { ("*" | "." | "·") power }
/// power     = primary [ "^" integer ]               (integer: optional sign, ASCII digits)
/// primary   = "(" quotient ")" | "()" | "1" | atom
/// atom      = name [ "<" molar-mass ">" ]
/// name      = non-SI unit | SI unit | prefix SI unit
/// ```
///
/// Multiplication binds tighter than division, so `kg/m.s^2` is `kg/(m·s²)`. HealthKit's
/// grammar allows a single `/`; this parser also accepts more, read left to right, because
/// HealthKit's own documentation lists `ml/kg/min` (meaning `ml/(kg·min)`). Spaces and tabs
/// between tokens are ignored. `·` (U+00B7) is accepted because HealthKit prints it
/// (`mL/min·kg`).
///
/// A name is resolved by whole-token match first (so `min` is the minute, `mmHg`, `ft`,
/// `cmAq`, `d`, `dBASPL`, `pD` and `kcal` are their own units), then as an SI unit
/// (`g m L l Pa s J K S Hz V W mol lx rad`), then as prefix + SI unit (`mg`, `dL`, `mcg`,
/// `µg`, `dam`, `kPa`, `mmol<…>`). Only the liter accepts a lower-case spelling (`l`), as in
/// HealthKit. Units are case-sensitive otherwise (`cal` ≠ `Cal`).
///
/// Every failure is an ``HKUnitError`` with a kind and, where meaningful, the offset of the
/// offending Unicode scalar; no input traps.
struct UnitParser {
    private let input: String
    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var depth = 0

    /// Parses a unit string.
    ///
    /// - Parameter string: The unit string, e.g. `mg/dL` or `mmol<180.15588000005408>/L`.
    /// - Returns: The normalized factorization.
    /// - Throws: ``HKUnitError`` describing the first problem found.
    static func parse(_ string: String) throws(HKUnitError) -> UnitFactorization {
        var parser = try UnitParser(string)
        return try parser.parseUnit()
    }

    private init(_ string: String) throws(HKUnitError) {
        input = string
        var scalars: [Unicode.Scalar] = []
        for scalar in string.unicodeScalars {
            if scalars.count == HKUnitError.maximumInputLength {
                throw HKUnitError(
                    kind: .inputTooLong,
                    unitString: string,
                    position: HKUnitError.maximumInputLength,
                    message: "unit string is longer than \(HKUnitError.maximumInputLength) characters"
                )
            }
            scalars.append(scalar)
        }
        self.scalars = scalars
    }

    // MARK: - Grammar

    private mutating func parseUnit() throws(HKUnitError) -> UnitFactorization {
        skipSpaces()
        guard position < scalars.count else {
            throw failure(.emptyString, at: nil, "empty unit string (the null unit is written \"()\")")
        }
        let raw = try parseQuotient()
        skipSpaces()
        if let scalar = current {
            if scalar == ")" {
                throw failure(.unbalancedParentheses, at: position, "')' without matching '('")
            }
            throw failure(.unexpectedCharacter, at: position, "unexpected \(describe(scalar))")
        }
        guard let factorization = UnitFactorization.normalizing(raw) else {
            throw failure(
                .exponentOutOfRange, at: nil,
                "combined exponent exceeds \(HKUnitError.maximumExponentMagnitude) in magnitude"
            )
        }
        return factorization
    }

    private mutating func parseQuotient() throws(HKUnitError) -> [UnitFactor] {
        var result = try parseProduct()
        while true {
            skipSpaces()
            guard current == "/" else { return result }
            position += 1
            let divisor = try parseProduct()
            for factor in divisor {
                result.append(UnitFactor(atom: factor.atom, exponent: -factor.exponent))
            }
        }
    }

    private mutating func parseProduct() throws(HKUnitError) -> [UnitFactor] {
        var result = try parsePower()
        while true {
            skipSpaces()
            guard let scalar = current, Self.isMultiplication(scalar) else { return result }
            position += 1
            result += try parsePower()
        }
    }

    private mutating func parsePower() throws(HKUnitError) -> [UnitFactor] {
        let base = try parsePrimary()
        skipSpaces()
        guard current == "^" else { return base }
        position += 1
        let exponentStart = position
        let power = try parseExponent()
        var raised: [UnitFactor] = []
        raised.reserveCapacity(base.count)
        for factor in base {
            let (product, overflow) = factor.exponent.multipliedReportingOverflow(by: power)
            guard !overflow, product.magnitude <= UInt(HKUnitError.maximumExponentMagnitude) else {
                throw failure(
                    .exponentOutOfRange, at: exponentStart,
                    "exponent exceeds \(HKUnitError.maximumExponentMagnitude) in magnitude"
                )
            }
            raised.append(UnitFactor(atom: factor.atom, exponent: product))
        }
        return raised
    }

    private mutating func parseExponent() throws(HKUnitError) -> Int {
        let start = position
        var negative = false
        if current == "-" || current == "+" {
            negative = current == "-"
            position += 1
        }
        let digitsStart = position
        var magnitude = 0
        var tooLarge = false
        while let scalar = current, let digit = Self.digitValue(scalar) {
            if !tooLarge {
                magnitude = magnitude * 10 + digit
                if magnitude > HKUnitError.maximumExponentMagnitude {
                    tooLarge = true
                }
            }
            position += 1
        }
        guard position > digitsStart else {
            throw failure(.missingExponent, at: start, "'^' must be followed by an integer")
        }
        guard !tooLarge else {
            throw failure(.exponentOutOfRange, at: start, "exponent exceeds \(HKUnitError.maximumExponentMagnitude) in magnitude")
        }
        return negative ? -magnitude : magnitude
    }

    private mutating func parsePrimary() throws(HKUnitError) -> [UnitFactor] {
        skipSpaces()
        guard let scalar = current else {
            throw failure(.expectedUnit, at: position, "unit expected at end of string")
        }
        if scalar == "(" {
            let open = position
            position += 1
            skipSpaces()
            if current == ")" {
                position += 1
                return []
            }
            depth += 1
            guard depth <= HKUnitError.maximumNestingDepth else {
                throw failure(.nestingTooDeep, at: open, "parentheses nested deeper than \(HKUnitError.maximumNestingDepth)")
            }
            let inner = try parseQuotient()
            skipSpaces()
            guard current == ")" else {
                if let unexpected = current {
                    throw failure(.unexpectedCharacter, at: position, "expected ')' but found \(describe(unexpected))")
                }
                throw failure(.unbalancedParentheses, at: open, "'(' without matching ')'")
            }
            position += 1
            depth -= 1
            return inner
        }
        if Self.digitValue(scalar) != nil {
            let start = position
            while let next = current, Self.digitValue(next) != nil {
                position += 1
            }
            guard position - start == 1, scalar == "1" else {
                throw failure(.unexpectedCharacter, at: start, "numbers other than 1 are not units")
            }
            return []
        }
        if Self.isNameScalar(scalar) {
            return [try parseAtom()]
        }
        if scalar == ")" || scalar == "/" || scalar == "^" || Self.isMultiplication(scalar) {
            throw failure(.expectedUnit, at: position, "unit expected before \(describe(scalar))")
        }
        throw failure(.unexpectedCharacter, at: position, "unexpected \(describe(scalar))")
    }

    private mutating func parseAtom() throws(HKUnitError) -> UnitFactor {
        let nameStart = position
        while let scalar = current, Self.isNameScalar(scalar) {
            position += 1
        }
        let name = text(nameStart..<position)
        let nameEnd = position

        var molarMass: Double?
        var molarMassStart: Int?
        if current == "<" {
            molarMassStart = position
            position += 1
            let numberStart = position
            while let scalar = current, scalar != ">" {
                position += 1
            }
            guard current == ">" else {
                throw failure(.invalidMolarMass, at: molarMassStart, "'<' without matching '>'")
            }
            let number = text(numberStart..<position)
            position += 1
            guard let value = Self.molarMass(from: number) else {
                throw failure(.invalidMolarMass, at: numberStart, "molar mass must be a finite number greater than zero")
            }
            molarMass = value
        }

        let (definition, prefix) = try resolve(name, at: nameStart)
        if definition.requiresMolarMass {
            guard let molarMass else {
                throw failure(.missingMolarMass, at: nameEnd, "'\(Self.clipped(name))' needs a molar mass, e.g. mmol<180.15588000005408>")
            }
            return UnitFactor(atom: UnitAtom(root: definition.root, prefix: prefix, molarMass: molarMass), exponent: 1)
        }
        if molarMassStart != nil {
            throw failure(.unexpectedMolarMass, at: molarMassStart, "'\(Self.clipped(name))' does not take a molar mass")
        }
        return UnitFactor(atom: UnitAtom(root: definition.root, prefix: prefix), exponent: 1)
    }

    /// Whole-token non-SI and SI names first, then prefix + SI unit.
    private func resolve(_ name: String, at start: Int) throws(HKUnitError) -> (UnitDefinition, HKMetricPrefix) {
        if let definition = UnitDefinition.unprefixedBySpelling[name] {
            return (definition, .none)
        }
        if let definition = UnitDefinition.prefixableBySpelling[name] {
            return (definition, .none)
        }
        var unprefixableRemainder: String?
        for (spelling, prefix) in HKMetricPrefix.parseSpellings where name.count > spelling.count && name.hasPrefix(spelling) {
            let remainder = String(name.dropFirst(spelling.count))
            if let definition = UnitDefinition.prefixableBySpelling[remainder] {
                return (definition, prefix)
            }
            if unprefixableRemainder == nil, UnitDefinition.unprefixedBySpelling[remainder] != nil {
                unprefixableRemainder = remainder
            }
        }
        if let unprefixableRemainder {
            throw failure(.prefixNotAllowed, at: start, "'\(unprefixableRemainder)' does not take a metric prefix")
        }
        throw failure(.unknownUnit, at: start, "unknown unit '\(Self.clipped(name))'")
    }

    // MARK: - Scanning helpers

    private var current: Unicode.Scalar? {
        position < scalars.count ? scalars[position] : nil
    }

    private mutating func skipSpaces() {
        while let scalar = current, scalar == " " || scalar == "\t" {
            position += 1
        }
    }

    private func text(_ range: Range<Int>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[range])
        return String(view)
    }

    private func describe(_ scalar: Unicode.Scalar) -> String {
        "'\(Character(scalar))'"
    }

    private func failure(_ kind: HKUnitError.Kind, at position: Int?, _ message: String) -> HKUnitError {
        HKUnitError(kind: kind, unitString: input, position: position, message: message)
    }

    /// A name shortened for messages, so errors stay small whatever the input.
    private static func clipped(_ name: String) -> String {
        name.count <= 32 ? name : String(name.prefix(32)) + "…"
    }

    private static func isMultiplication(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "*" || scalar == "." || scalar == "\u{00B7}"
    }

    private static func digitValue(_ scalar: Unicode.Scalar) -> Int? {
        guard scalar.value >= 48, scalar.value <= 57 else { return nil }
        return Int(scalar.value - 48)
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 65...90, 97...122: true  // A-Z a-z
        case 95, 37: true  // _ %
        case 0x00B5, 0x03BC: true  // µ μ (micro)
        default: false
        }
    }

    /// A plain decimal number (digits, `.`, exponent) that is finite and greater than zero.
    private static func molarMass(from text: String) -> Double? {
        guard !text.isEmpty else { return nil }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "0"..."9", ".", "e", "E", "+", "-":
                continue
            default:
                return nil
            }
        }
        guard let value = Double(text), value.isFinite, value > 0 else { return nil }
        return value
    }
}
