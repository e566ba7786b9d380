extension JSONObject {
    /// Appends a string member.
    public mutating func append(_ key: String, _ value: String) {
        members.append(JSONMember(key: key, value: .string(value)))
    }

    /// Appends a string member when the value is present.
    public mutating func append(_ key: String, ifPresent value: String?) {
        if let value { append(key, value) }
    }

    /// Appends a member.
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(JSONMember(key: key, value: value))
    }

    /// Appends an array of strings.
    public mutating func append(_ key: String, strings: [String]) {
        members.append(JSONMember(key: key, value: .array(strings.map { .string($0) })))
    }
}
