/// Typed reads of one JSON object's members, shared by the FhirBlocks server's request
/// reader and the client's answer reader: each failure names the member and what was expected,
/// never the value, and the caller words it for its own error type.
package struct JSONObjectFields: Sendable {
    /// Why a member could not be read.
    package enum Failure: Error, Sendable, Equatable {
        /// The member is absent.
        case missing(member: String)
        /// The member is of another JSON kind (`found`), or a number that is not an integer
        /// (`found` nil); `expected` reads "a string", "an array", "an integer", "a boolean".
        case wrongKind(member: String, expected: String, found: String?)
    }

    /// The object read.
    package let object: JSONObject

    /// Reads `value` as an object; nil when it is another kind.
    package init?(_ value: JSONValue) {
        guard let object = value.objectValue else { return nil }
        self.object = object
    }

    /// Whether the member is present (even as `null`).
    package func has(_ key: String) -> Bool { object[key] != nil }

    /// The member's value, when present and not `null`.
    private func present(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    package func string(_ key: String) throws(Failure) -> String {
        guard let value = object[key] else { throw .missing(member: key) }
        guard let text = value.stringValue else { throw .wrongKind(member: key, expected: "a string", found: value.kindName) }
        return text
    }

    package func optionalString(_ key: String) throws(Failure) -> String? {
        guard present(key) != nil else { return nil }
        return try string(key)
    }

    package func array(_ key: String) throws(Failure) -> [JSONValue] {
        guard let value = object[key] else { throw .missing(member: key) }
        guard let array = value.arrayValue else { throw .wrongKind(member: key, expected: "an array", found: value.kindName) }
        return array
    }

    package func stringArray(_ key: String) throws(Failure) -> [String] {
        var result: [String] = []
        for (index, element) in try array(key).enumerated() {
            guard let text = element.stringValue else {
                throw .wrongKind(member: "\(key)[\(index)]", expected: "a string", found: element.kindName)
            }
            result.append(text)
        }
        return result
    }

    package func optionalStringArray(_ key: String) throws(Failure) -> [String]? {
        guard present(key) != nil else { return nil }
        return try stringArray(key)
    }

    /// A JSON number that is an integer (`300`, not `300.5`).
    package func integer(_ key: String) throws(Failure) -> Int64 {
        guard let value = object[key] else { throw .missing(member: key) }
        guard case .number(let text) = value, let integer = Int64(text) else {
            throw .wrongKind(member: key, expected: "an integer", found: nil)
        }
        return integer
    }

    package func optionalInteger(_ key: String) throws(Failure) -> Int64? {
        guard present(key) != nil else { return nil }
        return try integer(key)
    }

    package func optionalBool(_ key: String) throws(Failure) -> Bool? {
        guard let value = present(key) else { return nil }
        guard case .bool(let flag) = value else { throw .wrongKind(member: key, expected: "a boolean", found: value.kindName) }
        return flag
    }
}
