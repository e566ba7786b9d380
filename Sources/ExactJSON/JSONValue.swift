/// A JSON value as FHIR needs it: numbers keep their lexical text (so `19.00` stays `19.00`) and
/// object members keep their order.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number exactly as written in the source, for example `"19.00"`, `"-3"` or `"1e3"`.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The name of this value's JSON kind ("null", "boolean", "number", "string", "array", "object"),
    /// for error messages that must not carry the value itself.
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

    /// The object, if this value is one.
    @inlinable public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The array, if this value is one.
    @inlinable public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// The string, if this value is one.
    @inlinable public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The boolean, if this value is one.
    @inlinable public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    /// The number as a `Double`, if this value is one (the nearest `Double` to its text).
    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// The value of the first member named `key`, if this value is an object that has one; nil
    /// for other kinds, so lookups chain: `bundle["entry"]?.arrayValue`.
    @inlinable public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// An object of these members, in this order.
    @inlinable public static func object(members: [JSONMember]) -> JSONValue {
        .object(JSONObject(members: members))
    }

    /// An integer number.
    @inlinable public static func number(integer: Int) -> JSONValue {
        .number(String(integer))
    }

    /// A number written as JavaScript's `JSON.stringify` writes it for timestamps and counts: an
    /// integral value below 9×10^15 without a fraction (`1687450764`), any other value in the
    /// shortest form that reads back as the same `Double` (`1687450764.656`). A value that is not
    /// finite, which JSON cannot write, becomes `null` (as `JSON.stringify` does).
    public static func number(double value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        if value == value.rounded(), abs(value) < 9.0e15 {
            return .number(String(Int64(value)))
        }
        return .number("\(value)")
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var value: JSONValue

    @inlinable public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }

    /// A member named `key` with this value.
    @inlinable public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// A JSON object whose members keep their source order. Lookups are linear, which is the fastest
/// choice for the small objects FHIR is made of.
public struct JSONObject: Sendable, Hashable {
    public var members: [JSONMember]

    @inlinable public init(members: [JSONMember] = []) {
        self.members = members
    }

    /// The value of the first member named `key`.
    @inlinable public subscript(key: String) -> JSONValue? {
        get {
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(JSONMember(key: key, value: newValue))
            }
        }
    }

    /// Member keys in order.
    public var keys: [String] { members.map(\.key) }

    @inlinable public var count: Int { members.count }
    @inlinable public var isEmpty: Bool { members.isEmpty }
}
