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
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var value: JSONValue

    @inlinable public init(key: String, value: JSONValue) {
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
