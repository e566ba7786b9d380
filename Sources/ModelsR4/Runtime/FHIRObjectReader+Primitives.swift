import FHIRCore

extension FHIRObjectReader {
    /// An optional primitive member and its `_key` companion.
    @inlinable public mutating func primitive<T>(
        _ key: String, _ companionKey: String
    ) throws(FHIRDecodingError) -> FHIRPrimitive<T>? {
        let (value, companion) = take(key, companionKey)
        if value == nil && companion == nil { return nil }
        return try makePrimitive(value, companion, key: key, companionKey: companionKey)
    }

    /// A required primitive member: the value, the companion, or both must be present.
    @inlinable public mutating func requiredPrimitive<T>(
        _ key: String, _ companionKey: String
    ) throws(FHIRDecodingError) -> FHIRPrimitive<T> {
        let (value, companion) = take(key, companionKey)
        if value == nil && companion == nil {
            throw FHIRDecodingError(path: [.key(key)], reason: .missingRequiredElement)
        }
        return try makePrimitive(value, companion, key: key, companionKey: companionKey)
    }

    /// An optional repeating primitive: `"given": ["a", null]` paired with `"_given": [null, {…}]`.
    @inlinable public mutating func primitives<T>(
        _ key: String, _ companionKey: String
    ) throws(FHIRDecodingError) -> [FHIRPrimitive<T>]? {
        let (value, companion) = take(key, companionKey)
        if value == nil && companion == nil { return nil }
        return try makePrimitives(value, companion, key: key, companionKey: companionKey)
    }

    /// A required repeating primitive.
    @inlinable public mutating func requiredPrimitives<T>(
        _ key: String, _ companionKey: String
    ) throws(FHIRDecodingError) -> [FHIRPrimitive<T>] {
        let (value, companion) = take(key, companionKey)
        if value == nil && companion == nil {
            throw FHIRDecodingError(path: [.key(key)], reason: .missingRequiredElement)
        }
        return try makePrimitives(value, companion, key: key, companionKey: companionKey)
    }

    /// The value of one scalar node.
    @inlinable func primitiveValue<T: FHIRPrimitiveValue>(
        _ node: Int, path: [FHIRDecodingError.PathComponent]
    ) throws(FHIRDecodingError) -> T {
        do {
            return try T(fhirJSON: tape.scalar(at: node))
        } catch {
            throw FHIRDecodingError(path: path, reason: .invalidPrimitive(error))
        }
    }

    @usableFromInline func makePrimitive<T>(
        _ value: Int?, _ companion: Int?, key: String, companionKey: String
    ) throws(FHIRDecodingError) -> FHIRPrimitive<T> {
        var primitive = FHIRPrimitive<T>()
        if let value {
            switch tape.nodes[value].kind {
            case .null: throw FHIRDecodingError(path: [.key(key)], reason: .nullNotAllowed)
            case .array, .object:
                throw FHIRDecodingError(path: [.key(key)], reason: .invalidPrimitive(
                    FHIRPrimitiveError(type: "primitive", reason: "expected a JSON scalar, found \(tape.kindName(at: value))")))
            default: primitive.value = try primitiveValue(value, path: [.key(key)])
            }
        }
        if let companion {
            try readCompanion(companion, into: &primitive, at: [.key(companionKey)])
        }
        return primitive
    }

    @usableFromInline func makePrimitives<T>(
        _ value: Int?, _ companion: Int?, key: String, companionKey: String
    ) throws(FHIRDecodingError) -> [FHIRPrimitive<T>] {
        var values: [Int] = []
        var companions: [Int] = []
        if let value {
            guard tape.nodes[value].kind == .array else {
                throw FHIRDecodingError(path: [.key(key)], reason: .wrongJSONType(expected: "array", found: tape.kindName(at: value)))
            }
            values = arrayElements(value)
        }
        if let companion {
            guard tape.nodes[companion].kind == .array else {
                throw FHIRDecodingError(
                    path: [.key(companionKey)], reason: .wrongJSONType(expected: "array", found: tape.kindName(at: companion))
                )
            }
            companions = arrayElements(companion)
        }
        if value != nil, companion != nil, values.count != companions.count {
            throw FHIRDecodingError(
                path: [.key(companionKey)],
                reason: .companionLengthMismatch(values: values.count, companions: companions.count)
            )
        }
        let count = Swift.max(values.count, companions.count)
        var result: [FHIRPrimitive<T>] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            var primitive = FHIRPrimitive<T>()
            let companionIsNull = index >= companions.count || tape.nodes[companions[index]].kind == .null
            if index < values.count {
                switch tape.nodes[values[index]].kind {
                case .null:
                    // A null value is only a placeholder for an item that has a companion.
                    if companionIsNull { throw FHIRDecodingError(path: [.key(key), .index(index)], reason: .nullNotAllowed) }
                case .array, .object:
                    throw FHIRDecodingError(path: [.key(key), .index(index)], reason: .invalidPrimitive(
                        FHIRPrimitiveError(type: "primitive", reason: "expected a JSON scalar, found \(tape.kindName(at: values[index]))")))
                default: primitive.value = try primitiveValue(values[index], path: [.key(key), .index(index)])
                }
            }
            if !companionIsNull {
                try readCompanion(companions[index], into: &primitive, at: [.key(companionKey), .index(index)])
            } else if index >= values.count {
                throw FHIRDecodingError(path: [.key(companionKey), .index(index)], reason: .nullNotAllowed)
            }
            result.append(primitive)
        }
        return result
    }

    /// Reads `{"id": …, "extension": […]}` into a primitive.
    @usableFromInline func readCompanion<T>(
        _ companion: Int, into primitive: inout FHIRPrimitive<T>, at path: [FHIRDecodingError.PathComponent]
    ) throws(FHIRDecodingError) {
        guard tape.nodes[companion].kind == .object else {
            throw FHIRDecodingError(path: path, reason: .wrongJSONType(expected: "object", found: tape.kindName(at: companion)))
        }
        guard tape.nodes[companion].length > 0 else {
            throw FHIRDecodingError(path: path, reason: .emptyCompanion)
        }
        do throws(FHIRDecodingError) {
            var reader = try nested(companion)
            // A companion's id is a plain string: it has no companion of its own.
            if let id = reader.take("id") {
                guard tape.nodes[id].kind == .string || tape.nodes[id].kind == .escapedString else {
                    throw FHIRDecodingError(path: [.key("id")], reason: .wrongJSONType(expected: "string", found: tape.kindName(at: id)))
                }
                primitive.id = FHIRString(tape.string(at: id))
            }
            primitive.extension = try reader.elements("extension")
            try reader.finish()
        } catch {
            var located = error
            located.path = path + error.path
            throw located
        }
    }
}
