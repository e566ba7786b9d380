/// A JSON value that keeps object members in their original order and numbers as their exact
/// literal text, so that FHIR decimals survive a round trip and issued payloads serialize in the
/// order the SMART Health Cards examples use.
///
/// It is `Sendable` and `Hashable`, unlike `[String: Any]`, and encodes as plain JSON through
/// `Encodable` (member order is then up to the encoder).
public enum SHCJSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its JSON literal text (for example `"1687450764.656"`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([SHCJSONValue])
    /// An object; members keep their order. Duplicate keys are rejected by the parser.
    case object([Member])

    /// One member of a JSON object.
    public struct Member: Sendable, Hashable {
        /// The member name.
        public var key: String
        /// The member value.
        public var value: SHCJSONValue

        /// Creates a member.
        public init(_ key: String, _ value: SHCJSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// Parses UTF-8 JSON text.
    ///
    /// - Parameters:
    ///   - bytes: the JSON text.
    ///   - maxDepth: the deepest nesting of arrays and objects accepted (protects the stack).
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(SHCJSONError) -> SHCJSONValue {
        try SHCJSONTape(bytes, maxDepth: maxDepth).value(0)
    }

    /// Creates a number from a `Double`, written the way JavaScript's `JSON.stringify` writes it
    /// for the values SMART Health Cards use (integers without a fraction, otherwise the shortest
    /// round-tripping decimal).
    public static func number(_ value: Double) -> SHCJSONValue {
        .number(SHCJSONValue.literal(for: value))
    }

    /// Creates a number from an integer.
    public static func number(_ value: Int) -> SHCJSONValue {
        .number(String(value))
    }

    static func literal(for value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 9.0e15 {
            return String(Int64(value))
        }
        return "\(value)"
    }

    /// The member named `key` when this is an object.
    public subscript(key: String) -> SHCJSONValue? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.key == key {
            return member.value
        }
        return nil
    }

    /// The string when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements when this is an array.
    public var arrayValue: [SHCJSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members when this is an object.
    public var objectMembers: [Member]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The number as a `Double` when this is a number.
    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// The boolean when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// A short name of the JSON kind, for messages ("string", "number", "object"…).
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension SHCJSONValue: Encodable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Encodes the value as the equivalent JSON.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let text):
            var container = encoder.singleValueContainer()
            if let integer = Int64(text) {
                try container.encode(integer)
            } else if let double = Double(text) {
                try container.encode(double)
            } else {
                try container.encode(text)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for member in members {
                try container.encode(member.value, forKey: Key(stringValue: member.key))
            }
        }
    }
}
