/// Reads the members of one JSON object for generated `init(fhirObject:)` code. Every member taken is
/// marked, so ``finish()`` can report members the type does not define.
public struct FHIRObjectReader {
    @usableFromInline let members: [JSONMember]
    @usableFromInline var taken: UInt64 = 0
    @usableFromInline var takenBeyond64: [Bool] = []
    /// The options in force, passed on to nested readers.
    public let options: FHIRDecodingOptions

    public init(_ object: JSONObject, options: FHIRDecodingOptions = .strict) {
        self.members = object.members
        self.options = options
        if members.count > 64 { takenBeyond64 = Array(repeating: false, count: members.count - 64) }
    }

    @inlinable mutating func mark(_ index: Int) {
        if index < 64 { taken |= 1 << UInt64(index) } else { takenBeyond64[index - 64] = true }
    }

    @inlinable func isTaken(_ index: Int) -> Bool {
        index < 64 ? taken & (1 << UInt64(index)) != 0 : takenBeyond64[index - 64]
    }

    /// Takes the member named `key`.
    @inlinable public mutating func take(_ key: String) -> JSONValue? {
        for index in members.indices where members[index].key == key {
            mark(index)
            return members[index].value
        }
        return nil
    }

    /// Takes a primitive's member and its `_key` companion in one pass.
    @inlinable public mutating func take(_ key: String, _ companionKey: String) -> (JSONValue?, JSONValue?) {
        var value: JSONValue?
        var companion: JSONValue?
        for index in members.indices {
            let name = members[index].key
            if name == key {
                mark(index)
                value = members[index].value
                if companion != nil { break }
            } else if name == companionKey {
                mark(index)
                companion = members[index].value
                if value != nil { break }
            }
        }
        return (value, companion)
    }

    /// The member key (without a leading `_`) of the one type present for choice element `base`
    /// (`value` → `valueQuantity`), or nil if none is. Only the choice's own keys count, since a
    /// sibling element may share the prefix (`amount[x]` beside `amountType`).
    public func choiceKey(_ base: String, variants: [String]) throws(FHIRDecodingError) -> String? {
        var found: String?
        for index in members.indices {
            var name = Substring(members[index].key)
            if name.first == "_" { name = name.dropFirst() }
            guard name.count > base.count, name.hasPrefix(base), variants.contains(where: { $0 == name }) else { continue }
            let key = String(name)
            if let previous = found, previous != key {
                throw FHIRDecodingError(path: [.key(base)], reason: .multipleChoiceTypes([previous, key].sorted()))
            }
            found = key
        }
        return found
    }

    /// Checks `resourceType` and takes it.
    public mutating func resourceType(_ expected: String) throws(FHIRDecodingError) {
        let found = take("resourceType")
        guard case .string(let name) = found, name == expected else {
            throw FHIRDecodingError(reason: .resourceTypeMismatch(expected: expected, found: found?.stringValue))
        }
    }

    /// The `resourceType` member without taking it.
    public func peekResourceType() throws(FHIRDecodingError) -> String {
        for member in members where member.key == "resourceType" {
            guard case .string(let name) = member.value else {
                throw FHIRDecodingError(
                    path: [.key("resourceType")], reason: .wrongJSONType(expected: "string", found: member.value.kindName)
                )
            }
            return name
        }
        throw FHIRDecodingError(reason: .resourceTypeMismatch(expected: "a resource type", found: nil))
    }

    /// Ends reading: in strict mode, the first member nobody took is an error.
    public func finish() throws(FHIRDecodingError) {
        guard options.rejectsUnknownMembers else { return }
        if members.count < 64, taken == (UInt64(1) << UInt64(members.count)) - 1 { return }
        for index in members.indices where !isTaken(index) {
            throw FHIRDecodingError(path: [.key(members[index].key)], reason: .unknownMember)
        }
    }

    /// The remaining members nobody took (for lenient readers that keep them).
    public func untakenMembers() -> [JSONMember] {
        members.indices.filter { !isTaken($0) }.map { members[$0] }
    }

    /// All members, for types that keep the whole object (unknown resources).
    public mutating func takeAll() -> JSONObject {
        for index in members.indices { mark(index) }
        return JSONObject(members: members)
    }

    // MARK: Complex members

    /// Decodes `value` as `T`, prefixing errors with `component`.
    @inlinable public func decode<T: FHIRJSONCodable>(
        _ value: JSONValue, as type: T.Type, at component: FHIRDecodingError.PathComponent
    ) throws(FHIRDecodingError) -> T {
        guard case .object(let object) = value else {
            throw FHIRDecodingError(
                path: [component], reason: value == .null ? .nullNotAllowed : .wrongJSONType(expected: "object", found: value.kindName)
            )
        }
        var reader = FHIRObjectReader(object, options: options)
        do {
            return try T(fhirObject: &reader)
        } catch {
            throw error.prefixed(component)
        }
    }

    /// An optional complex member.
    @inlinable public mutating func element<T: FHIRJSONCodable>(_ key: String) throws(FHIRDecodingError) -> T? {
        guard let value = take(key) else { return nil }
        return try decode(value, as: T.self, at: .key(key))
    }

    /// A required complex member.
    @inlinable public mutating func requiredElement<T: FHIRJSONCodable>(_ key: String) throws(FHIRDecodingError) -> T {
        guard let value = take(key) else {
            throw FHIRDecodingError(path: [.key(key)], reason: .missingRequiredElement)
        }
        return try decode(value, as: T.self, at: .key(key))
    }

    /// An optional repeating complex member.
    @inlinable public mutating func elements<T: FHIRJSONCodable>(_ key: String) throws(FHIRDecodingError) -> [T]? {
        guard let value = take(key) else { return nil }
        return try decodeArray(value, key: key)
    }

    /// A required repeating complex member.
    @inlinable public mutating func requiredElements<T: FHIRJSONCodable>(_ key: String) throws(FHIRDecodingError) -> [T] {
        guard let value = take(key) else {
            throw FHIRDecodingError(path: [.key(key)], reason: .missingRequiredElement)
        }
        return try decodeArray(value, key: key)
    }

    @inlinable func decodeArray<T: FHIRJSONCodable>(_ value: JSONValue, key: String) throws(FHIRDecodingError) -> [T] {
        guard case .array(let items) = value else {
            throw FHIRDecodingError(path: [.key(key)], reason: .wrongJSONType(expected: "array", found: value.kindName))
        }
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            do {
                result.append(try decode(item, as: T.self, at: .index(index)))
            } catch {
                throw error.prefixed(.key(key))
            }
        }
        return result
    }

    /// An optional choice element.
    @inlinable public mutating func choice<C: FHIRChoice>(_ base: String) throws(FHIRDecodingError) -> C? {
        guard let key = try choiceKey(base, variants: C.variantKeys) else { return nil }
        return try C.decode(from: &self, key: key)
    }

    /// A required choice element.
    @inlinable public mutating func requiredChoice<C: FHIRChoice>(_ base: String) throws(FHIRDecodingError) -> C {
        guard let value: C = try choice(base) else {
            throw FHIRDecodingError(path: [.key(base + "[x]")], reason: .missingRequiredElement)
        }
        return value
    }
}
