/// Reads the members of one JSON object of a `JSONTape` for generated `init(fhirObject:)` code.
/// Member names are compared as bytes, behind two independent 64-bit filters of the names present
/// (recorded by the tape for every object), so that looking up an absent element (most of a
/// type's elements, in real data) costs a few instructions; a present one is searched for from
/// just past the last one found. Every member taken is marked, so ``finish()`` can report members
/// the type does not define.
///
/// A reader made with ``init(tape:node:options:depth:)`` or ``nested(_:)`` holds the tape; the
/// readers it makes itself for nested objects while decoding (one per object of the document)
/// only borrow it, since they never outlive it: making, copying and ending one then costs no
/// reference counting. The readers of one document share one table of the strings read, so a
/// recurring text is allocated once.
public struct FHIRObjectReader {
    /// The document.
    @inlinable public var tape: JSONTape { tapeReference._withUnsafeGuaranteedRef { $0 } }
    @usableFromInline let tapeReference: Unmanaged<JSONTape>
    /// The strings read so far (it holds the tape too).
    @usableFromInline let strings: Unmanaged<FHIRStringTable>
    /// The string table, held by a reader that may outlive the one it came from; nil in the
    /// readers made for nested objects while decoding, whose table an enclosing reader holds.
    @usableFromInline let owner: FHIRStringTable?
    /// The object's node.
    public let node: Int
    @usableFromInline let count: Int
    @usableFromInline let keyFilter: UInt64
    @usableFromInline let secondKeyFilter: UInt64
    /// Whether any member name starts with `_`: without one, no primitive has a companion here.
    @usableFromInline let hasUnderscoreNames: Bool
    /// The members taken, one bit per ordinal; an object with more than 64 members keeps the
    /// marks of the rest in the string table (real data rarely has that many: only dozens of
    /// primitives present with their `_` companions reach it), so
    /// that a reader holds no array: copying one, as every nested object's decoding does, then
    /// costs no reference counting.
    @usableFromInline var taken: UInt64 = 0
    /// Where the next lookup starts: the key node and ordinal just past the last member found.
    /// Generated code takes members in definition order, which is the order FHIR serializers
    /// write them in, so a present member is usually found at the first comparison.
    @usableFromInline var cursorNode: Int
    @usableFromInline var cursorOrdinal = 0
    /// The options in force, passed on to nested readers.
    public let options: FHIRDecodingOptions
    /// How many objects enclose this one (0 at the top).
    public let depth: Int

    /// A reader over the object at `node`; a node that is not an object reads as an empty object.
    /// Inlinable, so a models module builds each nested object's reader in place.
    @inlinable public init(tape: JSONTape, node: Int, options: FHIRDecodingOptions = .strict, depth: Int = 0) {
        let table = FHIRStringTable(tape: tape)
        self.init(strings: Unmanaged.passUnretained(table), owner: table, node: node, options: options, depth: depth)
    }

    /// A reader over the object at `node` of the tape of `strings`, a table that `owner` holds, or
    /// that an enclosing reader holds when `owner` is nil.
    @inlinable init(strings: Unmanaged<FHIRStringTable>, owner: FHIRStringTable?, node: Int, options: FHIRDecodingOptions, depth: Int) {
        tapeReference = strings._withUnsafeGuaranteedRef { $0.tape }
        self.strings = strings
        self.owner = owner
        self.node = node
        self.options = options
        self.depth = depth
        cursorNode = node + 1
        let item = tapeReference._withUnsafeGuaranteedRef { $0.nodes[node] }
        if item.kind == .object {
            count = Int(item.length)
            keyFilter = item.memberFilter
            secondKeyFilter = item.secondMemberFilter
            hasUnderscoreNames = item.hasUnderscoreNames
        } else {
            count = 0
            keyFilter = 0
            secondKeyFilter = 0
            hasUnderscoreNames = false
        }
        if count > 64 { strings._withUnsafeGuaranteedRef { $0.clearMarks(object: node, count: count &- 64) } }
    }

    /// A reader for an object nested in this one (it holds the tape, so it may outlive this one).
    /// - Throws: `tooDeep` past `options.maximumElementDepth`.
    @inlinable public func nested(_ node: Int) throws(FHIRDecodingError) -> FHIRObjectReader {
        guard depth < options.maximumElementDepth else {
            throw FHIRDecodingError(reason: .tooDeep(options.maximumElementDepth))
        }
        return FHIRObjectReader(strings: strings, owner: strings.takeUnretainedValue(), node: node, options: options, depth: depth + 1)
    }

    /// A reader for an object nested in this one that borrows the tape: only for a reader that
    /// ends before this one does (decoding a member in place).
    /// - Throws: `tooDeep` past `options.maximumElementDepth`.
    @inlinable func borrowingNested(_ node: Int) throws(FHIRDecodingError) -> FHIRObjectReader {
        guard depth < options.maximumElementDepth else {
            throw FHIRDecodingError(reason: .tooDeep(options.maximumElementDepth))
        }
        return FHIRObjectReader(strings: strings, owner: nil, node: node, options: options, depth: depth + 1)
    }

    // MARK: The name filter

    /// The filter bit of a member name with this length, first and last byte
    /// (`JSONTape.nameFilterBit(length:first:last:)`).
    /// - Parameters:
    ///   - length: The name's length in bytes.
    ///   - first: The name's first byte.
    ///   - last: The name's last byte.
    @inlinable @inline(__always) public static func filterBit(length: Int, first: UInt8, last: UInt8) -> UInt64 {
        JSONTape.nameFilterBit(length: length, first: first, last: last)
    }

    @inlinable @inline(__always) static func filterBit(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        JSONTape.nameFilterBit(key)
    }

    /// The bit of a name in the second filter (`JSONTape.secondNameFilterBit(_:)`).
    /// - Parameter key: The name's bytes.
    @inlinable @inline(__always) public static func secondFilterBit(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        JSONTape.secondNameFilterBit(key)
    }

    @inlinable mutating func mark(_ ordinal: Int) {
        if ordinal < 64 {
            taken |= 1 << UInt64(ordinal)
        } else {
            strings._withUnsafeGuaranteedRef { $0.mark(object: node, ordinal &- 64) }
        }
    }

    @inlinable func isTaken(_ ordinal: Int) -> Bool {
        ordinal < 64 ? taken & (1 << UInt64(ordinal)) != 0 : strings._withUnsafeGuaranteedRef { $0.isMarked(object: node, ordinal &- 64) }
    }

    // MARK: Taking members

    /// Takes the member named `key`; returns its value's node.
    @inlinable public mutating func take(_ key: String) -> Int? {
        var key = key
        return key.withUTF8 { take(utf8: $0) }
    }

    /// Takes the member named `key` (the form generated code uses: no reference counting, no
    /// copies of the name).
    @inlinable public mutating func take(_ key: StaticString) -> Int? {
        key.withUTF8Buffer { take(utf8: $0) }
    }

    /// Takes the member whose name is `key`'s bytes.
    @inlinable mutating func take(utf8 key: UnsafeBufferPointer<UInt8>) -> Int? {
        guard keyFilter & Self.filterBit(key) != 0, secondKeyFilter & Self.secondFilterBit(key) != 0,
              let found = findMember(key) else { return nil }
        mark(found.ordinal)
        return found.value
    }

    /// Finds a member by name, starting at the cursor and wrapping around once.
    @inlinable mutating func findMember(_ key: UnsafeBufferPointer<UInt8>) -> (ordinal: Int, value: Int)? {
        let count = count
        let first = node + 1
        var keyNode = cursorNode
        var ordinal = cursorOrdinal
        // The borrowed tape: the closures below read its arrays without retaining it or them.
        let length = key.count
        // The name's fingerprint, compared with the one each key node holds: names of up to 16
        // bytes are matched without reading the document.
        let fingerprint = JSONKeyFingerprint(key)
        let found: (ordinal: Int, value: Int, next: Int)? = tapeReference._withUnsafeGuaranteedRef { tape in
            tape.nodes.withUnsafeBufferPointer { nodes in
                for _ in 0..<count {
                    if ordinal == count {
                        keyNode = first
                        ordinal = 0
                    }
                    let item = nodes[keyNode]
                    if item.kind == .escapedString {
                        if tape.decodedBytes[item.decodedRange].elementsEqual(key) {
                            return (ordinal, keyNode + 1, Int(nodes[keyNode + 1].end))
                        }
                    } else if Int(item.length) == length, item.keyFingerprint == fingerprint {
                        if JSONKeyFingerprint.coversWholeName(count: length) || Self.middleBytesEqual(tape, item, key) {
                            return (ordinal, keyNode + 1, Int(nodes[keyNode + 1].end))
                        }
                    }
                    keyNode = Int(nodes[keyNode + 1].end)
                    ordinal &+= 1
                }
                return nil
            }
        }
        guard let found else { return nil }
        cursorNode = found.next
        cursorOrdinal = found.ordinal + 1
        return (found.ordinal, found.value)
    }

    /// Whether a name longer than 16 bytes, whose length and fingerprint match the key node
    /// `item`'s, has the same bytes between its first and last eight as the document's name.
    @inlinable static func middleBytesEqual(_ tape: JSONTape, _ item: JSONTape.Node, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        tape.bytes.withUnsafeBufferPointer { bytes in
            let start = Int(item.start), length = key.count
            guard let base = bytes.baseAddress, let keyBase = key.baseAddress, length > 16, start &+ length <= bytes.count else {
                return false
            }
            return bytesEqual(base + start + 8, keyBase + 8, length &- 16)
        }
    }

    /// Whether the `length` bytes at `a` and at `b` are equal, compared a word at a time (member
    /// names are short: one or two loads each side for most).
    @inlinable @inline(__always)
    static func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        let a = UnsafeRawPointer(a), b = UnsafeRawPointer(b)
        if length >= 8 {
            var offset = 0
            while offset &+ 8 <= length {
                if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                    return false
                }
                offset &+= 8
            }
            if offset == length { return true }
            // The last eight bytes, overlapping the words already compared.
            let tail = length &- 8
            return a.loadUnaligned(fromByteOffset: tail, as: UInt64.self) == b.loadUnaligned(fromByteOffset: tail, as: UInt64.self)
        }
        if length >= 4 {
            let tail = length &- 4
            return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
                && a.loadUnaligned(fromByteOffset: tail, as: UInt32.self) == b.loadUnaligned(fromByteOffset: tail, as: UInt32.self)
        }
        var offset = 0
        while offset < length {
            if a.load(fromByteOffset: offset, as: UInt8.self) != b.load(fromByteOffset: offset, as: UInt8.self) { return false }
            offset &+= 1
        }
        return true
    }

    /// Takes a primitive's member and its `_key` companion; returns their value nodes.
    @inlinable public mutating func take(_ key: StaticString, _ companionKey: StaticString) -> (Int?, Int?) {
        (take(key), hasUnderscoreNames ? take(companionKey) : nil)
    }

    /// The member key (without a leading `_`) of the one type present for choice element `base`
    /// (`value` → `valueQuantity`), or nil if none is. Only the choice's own keys count, since a
    /// sibling element may share the prefix (`amount[x]` beside `amountType`).
    public func choiceKey(_ base: String, variants: [String]) throws(FHIRDecodingError) -> String? {
        var base = base
        return try base.withUTF8 { base in
            Result { () throws(FHIRDecodingError) -> Int? in try choiceVariant(utf8: base, variants: variants) }
        }.get().map { variants[$0] }
    }

    /// The index in `variants` of the one type present for choice element `base` (see
    /// ``choiceKey(_:variants:)``). Names are compared as bytes, and a variant only for a member
    /// whose name (without `_`) starts with the base name.
    @usableFromInline func choiceVariant(utf8 base: UnsafeBufferPointer<UInt8>, variants: [String]) throws(FHIRDecodingError) -> Int? {
        // The borrowed tape, read without retaining it.
        try tapeReference._withUnsafeGuaranteedRef { tape in
            Result { () throws(FHIRDecodingError) -> Int? in
                try Self.choiceVariant(in: tape, object: node, count: count, utf8: base, variants: variants)
            }
        }.get()
    }

    private static func choiceVariant(
        in tape: JSONTape, object: Int, count: Int, utf8 base: UnsafeBufferPointer<UInt8>, variants: [String]
    ) throws(FHIRDecodingError) -> Int? {
        var found: Int?
        var keyNode = object + 1
        for _ in 0..<count {
            let item = tape.nodes[keyNode]
            let next = Int(tape.nodes[keyNode + 1].end)
            let isCompanion = tape.keyFirstByte(keyNode) == UInt8(ascii: "_")
            let skip = isCompanion ? 1 : 0
            // Cheap rejection of names that cannot be `base` + a type name.
            if item.kind == .escapedString || (Int(item.length) - skip > base.count
                && tape.bytes.withUnsafeBufferPointer({ bytes in
                    guard let start = bytes.baseAddress, let baseStart = base.baseAddress else { return base.isEmpty }
                    return Self.bytesEqual(start + Int(item.start) + skip, baseStart, base.count)
                })) {
                if let variant = variants.firstIndex(where: { tape.keyEquals(keyNode, $0, skippingFirstByte: isCompanion) }) {
                    if let previous = found, previous != variant {
                        throw FHIRDecodingError(path: [.key(String(decoding: base, as: UTF8.self))],
                                                reason: .multipleChoiceTypes([variants[previous], variants[variant]].sorted()))
                    }
                    found = variant
                }
            }
            keyNode = next
        }
        return found
    }

    /// Checks `resourceType` and takes it.
    public mutating func resourceType(_ expected: StaticString) throws(FHIRDecodingError) {
        let found = take("resourceType" as StaticString)
        guard let found, tape.nodes[found].kind == .string || tape.nodes[found].kind == .escapedString,
              expected.withUTF8Buffer({ tape.stringEquals(found, $0) }) else {
            let name = found.flatMap { tape.scalar(at: $0).stringValue }
            throw FHIRDecodingError(reason: .resourceTypeMismatch(expected: expected.description, found: name))
        }
    }

    /// The `resourceType` member without taking it.
    public func peekResourceType() throws(FHIRDecodingError) -> String {
        let tape = tape
        let name: StaticString = "resourceType"
        var keyNode = node + 1
        for _ in 0..<count {
            if name.withUTF8Buffer({ tape.stringEquals(keyNode, $0) }) {
                let kind = tape.nodes[keyNode + 1].kind
                guard kind == .string || kind == .escapedString else {
                    throw FHIRDecodingError(
                        path: [.key("resourceType")], reason: .wrongJSONType(expected: "string", found: tape.kindName(at: keyNode + 1))
                    )
                }
                // A long type name (`ExplanationOfBenefit`) recurs in a bundle: the document's table
                // makes it once.
                return sharedString(keyNode + 1) ?? tape.string(at: keyNode + 1)
            }
            keyNode = Int(tape.nodes[keyNode + 1].end)
        }
        throw FHIRDecodingError(reason: .resourceTypeMismatch(expected: "a resource type", found: nil))
    }

    /// Ends reading: in strict mode, the first member nobody took is an error.
    public func finish() throws(FHIRDecodingError) {
        guard options.rejectsUnknownMembers else { return }
        if count < 64, taken == (UInt64(1) << UInt64(count)) - 1 { return }
        if let member = untakenMembers().first {
            throw FHIRDecodingError(path: [.key(member.key)], reason: .unknownMember)
        }
    }

    /// The members nobody took.
    public func untakenMembers() -> [JSONMember] {
        var result: [JSONMember] = []
        var keyNode = node + 1
        for ordinal in 0..<count {
            if !isTaken(ordinal) {
                result.append(JSONMember(key: tape.string(at: keyNode), value: tape.value(at: keyNode + 1)))
            }
            keyNode = Int(tape.nodes[keyNode + 1].end)
        }
        return result
    }

    /// All members as a tree, for types that keep the whole object (unknown resources).
    public mutating func takeAll() -> JSONObject {
        for ordinal in 0..<count { mark(ordinal) }
        return tape.value(at: node).objectValue ?? JSONObject()
    }

    // MARK: Complex members

    /// Decodes the object at `value` as `T`; errors have paths relative to that object.
    @inlinable func decodeObject<T: FHIRJSONCodable>(_ value: Int, as type: T.Type) throws(FHIRDecodingError) -> T {
        let kind = tape.nodes[value].kind
        guard kind == .object else {
            throw FHIRDecodingError(reason: kind == .null ? .nullNotAllowed : .wrongJSONType(expected: "object", found: tape.kindName(at: value)))
        }
        var reader = try borrowingNested(value)
        return try T(fhirObject: &reader)
    }

    /// Decodes the member value at `value` as `T`, prefixing errors with `key`.
    @inlinable func decodeMember<T: FHIRJSONCodable>(_ value: Int, as type: T.Type, key: StaticString) throws(FHIRDecodingError) -> T {
        do {
            return try decodeObject(value, as: T.self)
        } catch {
            throw error.prefixed(.key(key.description))
        }
    }

    /// An optional complex member.
    @inlinable public mutating func element<T: FHIRJSONCodable>(_ key: StaticString) throws(FHIRDecodingError) -> T? {
        guard let value = take(key) else { return nil }
        return try decodeMember(value, as: T.self, key: key)
    }

    /// A required complex member.
    @inlinable public mutating func requiredElement<T: FHIRJSONCodable>(_ key: StaticString) throws(FHIRDecodingError) -> T {
        guard let value = take(key) else {
            throw FHIRDecodingError(path: [.key(key.description)], reason: .missingRequiredElement)
        }
        return try decodeMember(value, as: T.self, key: key)
    }

    /// An optional repeating complex member.
    @inlinable public mutating func elements<T: FHIRJSONCodable>(_ key: StaticString) throws(FHIRDecodingError) -> [T]? {
        guard let value = take(key) else { return nil }
        return try decodeArray(value, key: key)
    }

    /// A required repeating complex member.
    @inlinable public mutating func requiredElements<T: FHIRJSONCodable>(_ key: StaticString) throws(FHIRDecodingError) -> [T] {
        guard let value = take(key) else {
            throw FHIRDecodingError(path: [.key(key.description)], reason: .missingRequiredElement)
        }
        return try decodeArray(value, key: key)
    }

    @inlinable func decodeArray<T: FHIRJSONCodable>(_ value: Int, key: StaticString) throws(FHIRDecodingError) -> [T] {
        let item = tape.nodes[value]
        guard item.kind == .array else {
            throw FHIRDecodingError(path: [.key(key.description)], reason: .wrongJSONType(expected: "array", found: tape.kindName(at: value)))
        }
        var result: [T] = []
        result.reserveCapacity(Int(item.length))
        var element = value + 1
        for index in 0..<Int(item.length) {
            do {
                result.append(try decodeObject(element, as: T.self))
            } catch {
                throw error.prefixed(.index(index)).prefixed(.key(key.description))
            }
            element = Int(tape.nodes[element].end)
        }
        return result
    }

    /// The element nodes of the array at `value`.
    @inlinable public func arrayElements(_ value: Int) -> [Int] {
        var result: [Int] = []
        let count = Int(tape.nodes[value].length)
        result.reserveCapacity(count)
        var element = value + 1
        for _ in 0..<count {
            result.append(element)
            element = Int(tape.nodes[element].end)
        }
        return result
    }

    /// An optional choice element.
    @inlinable public mutating func choice<C: FHIRChoice>(_ base: StaticString) throws(FHIRDecodingError) -> C? {
        guard keyFilter & C.variantFilter != 0, let variant = try choiceVariant(base, variants: C.variantKeys) else { return nil }
        return try C.decode(from: &self, variant: variant)
    }

    /// ``choiceVariant(utf8:variants:)`` for a static base name. (Out of line and not mutating, so
    /// that finding the variant does not copy the reader into a closure.)
    @usableFromInline func choiceVariant(_ base: StaticString, variants: [String]) throws(FHIRDecodingError) -> Int? {
        try base.withUTF8Buffer { base in
            Result { () throws(FHIRDecodingError) -> Int? in try choiceVariant(utf8: base, variants: variants) }
        }.get()
    }

    /// The name filter bits of a choice's member keys and their `_` companions (generated code
    /// keeps it in a `static let`).
    public static func filter(forChoiceKeys keys: [String]) -> UInt64 {
        var filter: UInt64 = 0
        for key in keys {
            let utf8 = Array(key.utf8)
            guard let first = utf8.first, let last = utf8.last else { continue }
            filter |= filterBit(length: utf8.count, first: first, last: last)
            filter |= filterBit(length: utf8.count + 1, first: UInt8(ascii: "_"), last: last)
        }
        return filter
    }

    /// A required choice element.
    @inlinable public mutating func requiredChoice<C: FHIRChoice>(_ base: StaticString) throws(FHIRDecodingError) -> C {
        guard let value: C = try choice(base) else {
            throw FHIRDecodingError(path: [.key(base.description + "[x]")], reason: .missingRequiredElement)
        }
        return value
    }
}
