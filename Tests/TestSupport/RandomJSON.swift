import ExactJSON

/// Generates random JSON trees with unusual strings (escapes, controls, astral plane), numbers in
/// every lexical form and occasional deep nesting.
public struct RandomJSON {
    public var rng: SplitMix64
    /// Stay within what Foundation's `JSONSerialization` handles faithfully: numbers it represents
    /// closely enough to compare as `Double`, and no U+FEFF in strings (it drops one that starts a
    /// string or follows an escape).
    public var foundationCompatible = false

    public init(seed: UInt64, foundationCompatible: Bool = false) {
        rng = SplitMix64(seed: seed)
        self.foundationCompatible = foundationCompatible
    }

    public mutating func document() -> JSONValue {
        if rng.chance(0.05) { return deepChain(levels: rng.int(50...400)) }
        return value(depth: 0)
    }

    public mutating func value(depth: Int) -> JSONValue {
        let containerWeight = depth < 6 ? 3 : 0
        switch rng.int(0...(5 + containerWeight)) {
        case 0: return .null
        case 1: return .bool(rng.chance(0.5))
        case 2, 3: return .number(number())
        case 4, 5: return .string(string())
        default:
            if rng.chance(0.5) {
                return .array((0..<rng.int(0...6)).map { _ in value(depth: depth + 1) })
            }
            return .object(object(depth: depth))
        }
    }

    public mutating func object(depth: Int) -> JSONObject {
        var members: [JSONMember] = []
        var seen = Set<String>()
        // Occasionally a big object, to exercise the set-based duplicate check.
        let count = rng.chance(0.1) ? rng.int(17...40) : rng.int(0...6)
        for _ in 0..<count {
            let key = rng.chance(0.7) ? asciiKey() : string()
            guard seen.insert(key).inserted else { continue }
            members.append(JSONMember(key: key, value: value(depth: depth + 1)))
        }
        return JSONObject(members: members)
    }

    public mutating func deepChain(levels: Int) -> JSONValue {
        var value = JSONValue.number(number())
        for _ in 0..<levels {
            value = rng.chance(0.5) ? .array([value]) : .object(JSONObject(members: [JSONMember(key: asciiKey(), value: value)]))
        }
        return value
    }

    public mutating func asciiKey() -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789")
        return String((0..<rng.int(1...12)).map { _ in letters[rng.int(0...(letters.count - 1))] })
    }

    public mutating func string() -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<rng.int(0...24) {
            let value: UInt32
            switch rng.int(0...9) {
            case 0: value = UInt32(rng.int(0...0x1F))                       // control characters
            case 1: value = [0x22, 0x5C, 0x2F, 0x7F][rng.int(0...3)]        // quote, backslash, slash, DEL
            case 2: value = UInt32(rng.int(0x80...0x7FF))                   // two-byte UTF-8
            case 3: value = UInt32(rng.int(0x800...0xD7FF))                 // three-byte, below surrogates
            case 4: value = UInt32(rng.int(0xE000...0xFFFD))                // three-byte, above surrogates
            case 5: value = UInt32(rng.int(0x10000...0x10FFFF))             // astral plane
            default: value = UInt32(rng.int(0x20...0x7E))                   // printable ASCII
            }
            if foundationCompatible && value == 0xFEFF { continue }
            if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
        }
        return String(scalars)
    }

    /// A number in any RFC 8259 lexical form.
    public mutating func number() -> String {
        let maxIntegerDigits = foundationCompatible ? 12 : 30
        let maxExponentDigits = foundationCompatible ? 2 : 4
        var text = rng.chance(0.3) ? "-" : ""
        text += rng.chance(0.2) ? "0" : rng.digits(rng.int(1...maxIntegerDigits), nonZeroFirst: true)
        if rng.chance(0.4) { text += "." + rng.digits(rng.int(1...(foundationCompatible ? 6 : 25))) }
        if rng.chance(0.3) {
            text += rng.chance(0.5) ? "e" : "E"
            text += ["", "+", "-"][rng.int(0...2)]
            text += rng.digits(rng.int(1...maxExponentDigits))
        }
        return text
    }
}
