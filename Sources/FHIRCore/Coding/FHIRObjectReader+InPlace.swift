extension FHIRObjectReader {
    /// Decodes the object at `value` into `target`, which holds a placeholder; errors have paths
    /// relative to that object.
    @inlinable func decodeObject<T: FHIRInPlaceDecodable>(_ value: Int, into target: inout T) throws(FHIRDecodingError) {
        let kind = tape.nodes[value].kind
        guard kind == .object else {
            throw FHIRDecodingError(reason: kind == .null ? .nullNotAllowed : .wrongJSONType(expected: "object", found: tape.kindName(at: value)))
        }
        var reader = try borrowingNested(value)
        try T.decodeMembers(into: &target, from: &reader)
    }

    /// An optional complex member, decoded into `target` (nil when the member is absent).
    @inlinable public mutating func element<T: FHIRInPlaceDecodable>(_ key: StaticString, into target: inout T?) throws(FHIRDecodingError) {
        guard let value = take(key) else {
            target = nil
            return
        }
        do {
            target = T.decodingPlaceholder
            // `target!` is the optional's payload, decoded in place.
            try decodeObject(value, into: &target!)
        } catch {
            throw error.prefixed(.key(key.description))
        }
    }

    /// A required complex member, decoded into `target` (which holds its placeholder).
    @inlinable public mutating func requiredElement<T: FHIRInPlaceDecodable>(_ key: StaticString, into target: inout T) throws(FHIRDecodingError) {
        guard let value = take(key) else {
            throw FHIRDecodingError(path: [.key(key.description)], reason: .missingRequiredElement)
        }
        do {
            try decodeObject(value, into: &target)
        } catch {
            throw error.prefixed(.key(key.description))
        }
    }

    /// An optional repeating complex member, each element decoded in place in the new array (nil
    /// when the member is absent).
    @inlinable public mutating func elements<T: FHIRInPlaceDecodable>(_ key: StaticString, into target: inout [T]?) throws(FHIRDecodingError) {
        guard let value = take(key) else {
            target = nil
            return
        }
        target = try decodeArrayInPlace(value, key: key)
    }

    /// A required repeating complex member.
    @inlinable public mutating func requiredElements<T: FHIRInPlaceDecodable>(_ key: StaticString, into target: inout [T]) throws(FHIRDecodingError) {
        guard let value = take(key) else {
            throw FHIRDecodingError(path: [.key(key.description)], reason: .missingRequiredElement)
        }
        target = try decodeArrayInPlace(value, key: key)
    }

    @inlinable func decodeArrayInPlace<T: FHIRInPlaceDecodable>(_ value: Int, key: StaticString) throws(FHIRDecodingError) -> [T] {
        let item = tape.nodes[value]
        guard item.kind == .array else {
            throw FHIRDecodingError(path: [.key(key.description)], reason: .wrongJSONType(expected: "array", found: tape.kindName(at: value)))
        }
        let count = Int(item.length)
        var result: [T] = []
        result.reserveCapacity(count)
        var element = value + 1
        for index in 0..<count {
            result.append(T.decodingPlaceholder)
            do {
                try decodeObject(element, into: &result[index])
            } catch {
                throw error.prefixed(.index(index)).prefixed(.key(key.description))
            }
            element = Int(tape.nodes[element].end)
        }
        return result
    }
}
