import FHIRCore

/// Typed access to the members of one JSON object of a request, with errors that name the
/// member and the message but never repeat a value.
struct JSONFields {
    let object: JSONObject
    /// What is being read, for example `"csi/requestCsiRegistration"` or `"permission.heartScope"`.
    let context: String

    init(_ value: JSONValue, context: String) throws(SMOACError) {
        guard let object = value.objectValue else {
            throw .malformedRequest("\(context): expected a JSON object, found \(value.kindName)")
        }
        self.object = object
        self.context = context
    }

    func has(_ key: String) -> Bool { object[key] != nil }

    func string(_ key: String) throws(SMOACError) -> String {
        guard let value = object[key] else { throw .malformedRequest("\(context): \"\(key)\" is missing") }
        guard let text = value.stringValue else {
            throw .malformedRequest("\(context): \"\(key)\" must be a string, found \(value.kindName)")
        }
        return text
    }

    func optionalString(_ key: String) throws(SMOACError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else {
            throw .malformedRequest("\(context): \"\(key)\" must be a string, found \(value.kindName)")
        }
        return text
    }

    func array(_ key: String) throws(SMOACError) -> [JSONValue] {
        guard let value = object[key] else { throw .malformedRequest("\(context): \"\(key)\" is missing") }
        guard let array = value.arrayValue else {
            throw .malformedRequest("\(context): \"\(key)\" must be an array, found \(value.kindName)")
        }
        return array
    }

    func stringArray(_ key: String) throws(SMOACError) -> [String] {
        var result: [String] = []
        for (index, element) in try array(key).enumerated() {
            guard let text = element.stringValue else {
                throw .malformedRequest("\(context): \"\(key)[\(index)]\" must be a string, found \(element.kindName)")
            }
            result.append(text)
        }
        return result
    }

    func optionalStringArray(_ key: String) throws(SMOACError) -> [String]? {
        guard let value = object[key], value != .null else { return nil }
        return try stringArray(key)
    }

    func fields(_ key: String) throws(SMOACError) -> JSONFields {
        guard let value = object[key] else { throw .malformedRequest("\(context): \"\(key)\" is missing") }
        return try JSONFields(value, context: "\(context).\(key)")
    }

    /// A JSON number that is an integer (`"300"`, not `"300.5"`), or nil when absent.
    func optionalInteger(_ key: String) throws(SMOACError) -> Int64? {
        guard let value = object[key], value != .null else { return nil }
        guard case .number(let text) = value, let integer = Int64(text) else {
            throw .malformedRequest("\(context): \"\(key)\" must be an integer")
        }
        return integer
    }

    func optionalBool(_ key: String) throws(SMOACError) -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard case .bool(let flag) = value else {
            throw .malformedRequest("\(context): \"\(key)\" must be a boolean, found \(value.kindName)")
        }
        return flag
    }
}

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
