extension FHIRObjectReader {
    /// An optional primitive member and its `_key` companion.
    @inlinable public mutating func primitive<P: FHIRPrimitiveProtocol>(
        _ key: StaticString, _ companionKey: StaticString
    ) throws(FHIRDecodingError) -> P? {
        let (value, companion) = take(key, companionKey)
        if value == nil && companion == nil { return nil }
        return try makePrimitive(value, companion, key: key, companionKey: companionKey)
    }

    /// A required primitive member: the value, the companion, or both must be present.
    @inlinable public mutating func requiredPrimitive<P: FHIRPrimitiveProtocol>(
        _ key: StaticString, _ companionKey: StaticString
    ) throws(FHIRDecodingError) -> P {
        let (value, companion) = take(key, companionKey)
        if value == nil && companion == nil {
            throw FHIRDecodingError(path: [.key(key.description)], reason: .missingRequiredElement)
        }
        return try makePrimitive(value, companion, key: key, companionKey: companionKey)
    }

    /// An optional repeating primitive: `"given": ["a", null]` paired with `"_given": [null, {…}]`.
    @inlinable public mutating func primitives<P: FHIRPrimitiveProtocol>(
        _ key: StaticString, _ companionKey: StaticString
    ) throws(FHIRDecodingError) -> [P]? {
        let (value, companion) = take(key, companionKey)
        if value == nil && companion == nil { return nil }
        return try makePrimitives(value, companion, key: key, companionKey: companionKey)
    }

    /// A required repeating primitive.
    @inlinable public mutating func requiredPrimitives<P: FHIRPrimitiveProtocol>(
        _ key: StaticString, _ companionKey: StaticString
    ) throws(FHIRDecodingError) -> [P] {
        let (value, companion) = take(key, companionKey)
        if value == nil && companion == nil {
            throw FHIRDecodingError(path: [.key(key.description)], reason: .missingRequiredElement)
        }
        return try makePrimitives(value, companion, key: key, companionKey: companionKey)
    }

    /// The value of one scalar node, member `key` (item `index` of it, for repeating primitives).
    @inlinable func primitiveValue<T: FHIRPrimitiveValue>(
        _ node: Int, key: StaticString, index: Int? = nil
    ) throws(FHIRDecodingError) -> T {
        // Strings and URIs long enough to be allocated come from the document's string table.
        // (Decided at compile time in each specialization.)
        if T.self == FHIRString.self || T.self == FHIRURI.self, let string = sharedString(node) {
            if T.self == FHIRString.self { return unsafeBitCast(FHIRString(string), to: T.self) }
            return unsafeBitCast(FHIRURI(string), to: T.self)
        }
        // The borrowed tape, passed on without retaining it.
        let value = tapeReference._withUnsafeGuaranteedRef { tape in
            Result { () throws(FHIRPrimitiveError) -> T in try T(fhirJSON: tape, node: node) }
        }
        do {
            return try value.get()
        } catch {
            let path: [FHIRDecodingError.PathComponent] = index.map { [.key(key.description), .index($0)] } ?? [.key(key.description)]
            throw FHIRDecodingError(path: path, reason: .invalidPrimitive(error))
        }
    }

    /// The text of an unescaped string node from the document's string table, or nil for any
    /// other node and for strings too short to be allocated or too long to be worth sharing.
    @inlinable func sharedString(_ node: Int) -> String? {
        let item = tape.nodes[node]
        let length = Int(item.length)
        guard item.kind == .string, length > FHIRStringTable.smallStringLimit, length <= FHIRStringTable.largeStringLimit else {
            return nil
        }
        return strings._withUnsafeGuaranteedRef { $0.string(start: Int(item.start), length: length) }
    }

    @inlinable func makePrimitive<P: FHIRPrimitiveProtocol>(
        _ value: Int?, _ companion: Int?, key: StaticString, companionKey: StaticString
    ) throws(FHIRDecodingError) -> P {
        var primitive = P(value: nil, companion: nil)
        if let value {
            switch tape.nodes[value].kind {
            case .null: throw FHIRDecodingError(path: [.key(key.description)], reason: .nullNotAllowed)
            case .array, .object:
                throw FHIRDecodingError(path: [.key(key.description)], reason: .invalidPrimitive(
                    FHIRPrimitiveError(type: "primitive", reason: "expected a JSON scalar, found \(tape.kindName(at: value))")))
            default: primitive.value = try primitiveValue(value, key: key)
            }
        }
        if let companion {
            try readCompanion(companion, into: &primitive, at: [.key(companionKey.description)])
        }
        return primitive
    }

    @inlinable func makePrimitives<P: FHIRPrimitiveProtocol>(
        _ value: Int?, _ companion: Int?, key: StaticString, companionKey: StaticString
    ) throws(FHIRDecodingError) -> [P] {
        // Walks both arrays' nodes side by side (no lists of element nodes are built).
        var valueCount = 0
        var companionCount = 0
        if let value {
            guard tape.nodes[value].kind == .array else {
                throw FHIRDecodingError(path: [.key(key.description)], reason: .wrongJSONType(expected: "array", found: tape.kindName(at: value)))
            }
            valueCount = Int(tape.nodes[value].length)
        }
        if let companion {
            guard tape.nodes[companion].kind == .array else {
                throw FHIRDecodingError(
                    path: [.key(companionKey.description)], reason: .wrongJSONType(expected: "array", found: tape.kindName(at: companion))
                )
            }
            companionCount = Int(tape.nodes[companion].length)
        }
        if value != nil, companion != nil, valueCount != companionCount {
            throw FHIRDecodingError(
                path: [.key(companionKey.description)],
                reason: .companionLengthMismatch(values: valueCount, companions: companionCount)
            )
        }
        let count = Swift.max(valueCount, companionCount)
        var result: [P] = []
        result.reserveCapacity(count)
        var valueNode = (value ?? 0) + 1
        var companionNode = (companion ?? 0) + 1
        for index in 0..<count {
            var primitive = P(value: nil, companion: nil)
            let companionIsNull = index >= companionCount || tape.nodes[companionNode].kind == .null
            if index < valueCount {
                switch tape.nodes[valueNode].kind {
                case .null:
                    // A null value is only a placeholder for an item that has a companion.
                    if companionIsNull { throw FHIRDecodingError(path: [.key(key.description), .index(index)], reason: .nullNotAllowed) }
                case .array, .object:
                    throw FHIRDecodingError(path: [.key(key.description), .index(index)], reason: .invalidPrimitive(
                        FHIRPrimitiveError(type: "primitive", reason: "expected a JSON scalar, found \(tape.kindName(at: valueNode))")))
                default: primitive.value = try primitiveValue(valueNode, key: key, index: index)
                }
                valueNode = Int(tape.nodes[valueNode].end)
            }
            if !companionIsNull {
                try readCompanion(companionNode, into: &primitive, at: [.key(companionKey.description), .index(index)])
            } else if index >= valueCount {
                throw FHIRDecodingError(path: [.key(companionKey.description), .index(index)], reason: .nullNotAllowed)
            }
            if index < companionCount { companionNode = Int(tape.nodes[companionNode].end) }
            result.append(primitive)
        }
        return result
    }

    /// Reads `{"id": …, "extension": […]}` into a primitive.
    @inlinable func readCompanion<P: FHIRPrimitiveProtocol>(
        _ companion: Int, into primitive: inout P, at path: [FHIRDecodingError.PathComponent]
    ) throws(FHIRDecodingError) {
        guard tape.nodes[companion].kind == .object else {
            throw FHIRDecodingError(path: path, reason: .wrongJSONType(expected: "object", found: tape.kindName(at: companion)))
        }
        guard tape.nodes[companion].length > 0 else {
            throw FHIRDecodingError(path: path, reason: .emptyCompanion)
        }
        do throws(FHIRDecodingError) {
            var reader = try borrowingNested(companion)
            // A companion's id is a plain string: it has no companion of its own.
            var id: FHIRString?
            if let node = reader.take("id" as StaticString) {
                guard tape.nodes[node].kind == .string || tape.nodes[node].kind == .escapedString else {
                    throw FHIRDecodingError(path: [.key("id")], reason: .wrongJSONType(expected: "string", found: tape.kindName(at: node)))
                }
                id = FHIRString(tape.string(at: node))
            }
            let extensions: [P.ExtensionType]? = try reader.elements("extension")
            try reader.finish()
            primitive.setCompanion(id: id, extension: extensions)
        } catch {
            var located = error
            located.path = path + error.path
            throw located
        }
    }
}
