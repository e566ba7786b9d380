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

    @usableFromInline func makePrimitive<T>(
        _ value: JSONValue?, _ companion: JSONValue?, key: String, companionKey: String
    ) throws(FHIRDecodingError) -> FHIRPrimitive<T> {
        var primitive = FHIRPrimitive<T>()
        if let value {
            if case .null = value { throw FHIRDecodingError(path: [.key(key)], reason: .nullNotAllowed) }
            do {
                primitive.value = try T(fhirJSON: value)
            } catch {
                throw FHIRDecodingError(path: [.key(key)], reason: .invalidPrimitive(error))
            }
        }
        if let companion {
            try readCompanion(companion, into: &primitive, at: [.key(companionKey)])
        }
        return primitive
    }

    @usableFromInline func makePrimitives<T>(
        _ value: JSONValue?, _ companion: JSONValue?, key: String, companionKey: String
    ) throws(FHIRDecodingError) -> [FHIRPrimitive<T>] {
        var values: [JSONValue] = []
        var companions: [JSONValue] = []
        if let value {
            guard case .array(let items) = value else {
                throw FHIRDecodingError(path: [.key(key)], reason: .wrongJSONType(expected: "array", found: value.kindName))
            }
            values = items
        }
        if let companion {
            guard case .array(let items) = companion else {
                throw FHIRDecodingError(
                    path: [.key(companionKey)], reason: .wrongJSONType(expected: "array", found: companion.kindName)
                )
            }
            companions = items
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
            if index < values.count, values[index] != .null {
                do {
                    primitive.value = try T(fhirJSON: values[index])
                } catch {
                    throw FHIRDecodingError(path: [.key(key), .index(index)], reason: .invalidPrimitive(error))
                }
            }
            if index < companions.count, companions[index] != .null {
                try readCompanion(companions[index], into: &primitive, at: [.key(companionKey), .index(index)])
            }
            result.append(primitive)
        }
        return result
    }

    /// Reads `{"id": …, "extension": […]}` into a primitive.
    @usableFromInline func readCompanion<T>(
        _ companion: JSONValue, into primitive: inout FHIRPrimitive<T>, at path: [FHIRDecodingError.PathComponent]
    ) throws(FHIRDecodingError) {
        guard case .object(let object) = companion else {
            throw FHIRDecodingError(path: path, reason: .wrongJSONType(expected: "object", found: companion.kindName))
        }
        var reader = FHIRObjectReader(object, options: options)
        do {
            let id: FHIRPrimitive<FHIRString>? = try reader.primitive("id", "_id")
            primitive.id = id?.value
            primitive.extension = try reader.elements("extension")
            try reader.finish()
        } catch {
            var located = error
            located.path = path + error.path
            throw located
        }
    }
}
