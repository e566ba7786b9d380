extension JSONTape {
    /// What the node is (a string is ``Kind/string`` or, when written with escapes,
    /// ``Kind/escapedString``; ``isString(_:)`` accepts both).
    @inlinable public func kind(_ node: Int) -> Kind {
        nodes[node].kind
    }

    /// Whether the node is a string (with or without escapes).
    @inlinable public func isString(_ node: Int) -> Bool {
        let kind = nodes[node].kind
        return kind == .string || kind == .escapedString
    }

    /// The number of members of an object node or of elements of an array node (0 for scalars).
    @inlinable public func count(_ node: Int) -> Int {
        let item = nodes[node]
        return item.kind == .object || item.kind == .array ? Int(item.length) : 0
    }

    /// Calls `body(keyNode, valueNode)` for each member of the object at `object`, in document
    /// order; nothing for a node that is not an object.
    @inlinable public func forEachMember(of object: Int, _ body: (_ key: Int, _ value: Int) throws -> Void) rethrows {
        let item = nodes[object]
        guard item.kind == .object else { return }
        var key = object + 1
        for _ in 0..<Int(item.length) {
            try body(key, key + 1)
            key = Int(nodes[key + 1].end)
        }
    }

    /// Calls `body(position, elementNode)` for each element of the array at `array`, in order;
    /// nothing for a node that is not an array.
    @inlinable public func forEachElement(of array: Int, _ body: (_ position: Int, _ element: Int) throws -> Void) rethrows {
        let item = nodes[array]
        guard item.kind == .array else { return }
        var element = array + 1
        for position in 0..<Int(item.length) {
            try body(position, element)
            element = Int(nodes[element].end)
        }
    }

    /// The value node of the first member of `object` named `name` (compared as UTF-8 bytes,
    /// escapes resolved); nil when there is none or `object` is not an object.
    ///
    /// The names are compared in place: a length check, then the bytes a word at a time (a
    /// lookup is on every path that reads a document, so it creates nothing and calls nothing).
    @inlinable public func memberValue(of object: Int, named name: StaticString) -> Int? {
        let item = nodes[object]
        guard item.kind == .object else { return nil }
        let count = name.utf8CodeUnitCount
        let text = name.utf8Start
        // The object's name filter rules most absent names out without looking at a member.
        guard item.memberFilter & JSONTape.nameFilterBit(UnsafeBufferPointer(start: text, count: count)) != 0 else { return nil }
        return nodes.withUnsafeBufferPointer { nodes in
            bytes.withUnsafeBufferPointer { bytes in
                var key = object &+ 1
                for _ in 0..<Int(item.length) {
                    let keyItem = nodes[key]
                    if keyItem.kind == .escapedString {
                        if decodedBytesEqual(keyItem, text, count: count) { return key &+ 1 }
                    } else if Int(keyItem.length) == count,
                              let base = bytes.baseAddress,
                              Self.bytesEqual(base + Int(keyItem.start), text, count: count) {
                        return key &+ 1
                    }
                    key = Int(nodes[key &+ 1].end)
                }
                return nil
            }
        }
    }

    /// Whether `count` bytes at `a` and at `b` are the same, compared a word at a time.
    @inlinable package static func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int) -> Bool {
        let left = UnsafeRawPointer(a), right = UnsafeRawPointer(b)
        var offset = 0
        while offset &+ 8 <= count {
            if left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                return false
            }
            offset &+= 8
        }
        while offset < count {
            if a[offset] != b[offset] { return false }
            offset &+= 1
        }
        return true
    }

    /// Whether the decoded bytes of an `escapedString` node are the `count` bytes at `text`.
    @inlinable func decodedBytesEqual(_ item: Node, _ text: UnsafePointer<UInt8>, count: Int) -> Bool {
        let range = item.decodedRange
        guard range.count == count else { return false }
        guard count > 0 else { return true }
        return decodedBytes.withUnsafeBufferPointer { decoded in
            guard let base = decoded.baseAddress, range.upperBound <= decoded.count else { return false }
            return Self.bytesEqual(base + range.lowerBound, text, count: count)
        }
    }

    /// Calls `body` with the UTF-8 bytes of the string (or member name) at `node`, escapes
    /// resolved, without creating a `String`.
    @inlinable public func withUTF8<Result>(ofString node: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let item = nodes[node]
        if item.kind == .escapedString {
            return try decodedBytes.withUnsafeBufferPointer { buffer in
                try body(UnsafeBufferPointer(rebasing: buffer[item.decodedRange]))
            }
        }
        return try bytes.withUnsafeBufferPointer { buffer in
            try body(UnsafeBufferPointer(rebasing: buffer[Int(item.start)..<Int(item.start) + Int(item.length)]))
        }
    }

    /// Whether the node is a string (or member name) whose text is exactly `text`.
    @inlinable public func stringEquals(_ node: Int, _ text: StaticString) -> Bool {
        isString(node) && stringEquals(node, UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Whether the node is a string whose text starts with `prefix`.
    @inlinable public func stringHasPrefix(_ node: Int, _ prefix: StaticString) -> Bool {
        guard isString(node) else { return false }
        let expected = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        return withUTF8(ofString: node) { text in
            guard text.count >= expected.count else { return false }
            guard let base = text.baseAddress, let prefix = expected.baseAddress else { return expected.isEmpty }
            return Self.bytesEqual(base, prefix, count: expected.count)
        }
    }

    /// Whether two string (or member name) nodes have the same text, compared as UTF-8 bytes
    /// (escapes resolved, no Unicode normalization).
    @inlinable public func stringsEqual(_ lhs: Int, _ rhs: Int) -> Bool {
        guard isString(lhs), isString(rhs) else { return false }
        let a = nodes[lhs], b = nodes[rhs]
        if a.kind == .string && b.kind == .string {
            guard a.length == b.length else { return false }
            return bytes.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return a.length == 0 }
                return Self.bytesEqual(base + Int(a.start), base + Int(b.start), count: Int(a.length))
            }
        }
        return withUTF8(ofString: lhs) { left in
            withUTF8(ofString: rhs) { right in
                guard left.count == right.count else { return false }
                guard let l = left.baseAddress, let r = right.baseAddress else { return true }
                return Self.bytesEqual(l, r, count: left.count)
            }
        }
    }

    /// The string at `node` when there is a node and it is a string; nil otherwise.
    public func stringValue(at node: Int?) -> String? {
        guard let node, isString(node) else { return nil }
        return string(at: node)
    }
}
