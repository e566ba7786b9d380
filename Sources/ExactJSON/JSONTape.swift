/// A validated JSON document as a flat list of nodes over its bytes: the form FHIR decoding reads.
///
/// Parsing to a tape creates no `String`, array or dictionary per value; member names are compared
/// as bytes, and values become Swift values only when a model asks for them. Nodes are in document
/// order. An object's node is followed by its members (a key node, then the value's nodes); an
/// array's by its elements. A container's ``Node/end`` is the index just past its subtree, so a
/// value is skipped in one step.
public final class JSONTape: Sendable {
    /// What a node is.
    public enum Kind: UInt8, Sendable {
        case null, `false`, `true`, number, string, escapedString, array, object
    }

    /// One value (or member name).
    public struct Node: Sendable {
        public var kind: Kind
        /// For an object: whether any member name starts with `_` (a primitive's companion).
        public var hasUnderscoreNames = false
        /// Byte offset of the content: a string's first byte after the quote, a number's first byte,
        /// a container's bracket.
        public var start: Int32
        /// Byte length for scalars (a string's raw length between the quotes); member or element count
        /// for containers.
        public var length: Int32
        /// The index of the first node after this value's subtree.
        public var end: Int32
        /// For an object: the name filter of its members (see ``JSONTape/nameFilterBit(_:)``), one
        /// bit per name, recorded while the names are scanned. For an `escapedString`: where its
        /// decoded bytes are (``decodedRange``). For a member name without escapes: the first
        /// word of its ``keyFingerprint``. 0 for other nodes.
        public var memberFilter: UInt64 = 0
        /// For an object: a second, independent name filter (see ``JSONTape/secondNameFilterBit(_:)``);
        /// a name must pass both, so a lookup of an absent name rarely has to scan the members.
        /// For a member name without escapes: the second word of its ``keyFingerprint``.
        public var secondMemberFilter: UInt64 = 0

        /// For a member name without escapes (a `string` node in a key position): its first and
        /// last eight bytes, recorded while it is scanned, so a lookup compares the name without
        /// reading the document (stored in the two filter words, which only objects use otherwise).
        @inlinable public var keyFingerprint: JSONKeyFingerprint {
            get { JSONKeyFingerprint(first: memberFilter, last: secondMemberFilter) }
            set {
                memberFilter = newValue.first
                secondMemberFilter = newValue.last
            }
        }

        /// For an `escapedString` node: where the tape keeps its decoded bytes (the range of
        /// one buffer shared by every escaped string), stored in ``memberFilter``, which only
        /// objects use otherwise.
        @inlinable public var decodedRange: Range<Int> {
            get {
                let offset = Int(truncatingIfNeeded: memberFilter & 0xFFFF_FFFF)
                return offset..<offset + Int(truncatingIfNeeded: memberFilter >> 32)
            }
            set {
                memberFilter = UInt64(truncatingIfNeeded: newValue.lowerBound) | UInt64(truncatingIfNeeded: newValue.count) << 32
            }
        }

        public init(kind: Kind, start: Int32, length: Int32, end: Int32) {
            self.kind = kind
            self.start = start
            self.length = length
            self.end = end
        }
    }

    /// The document's bytes.
    public let bytes: [UInt8]
    /// The nodes; node 0 is the top-level value.
    public let nodes: [Node]
    /// The decoded bytes of strings written with escapes (rare in real documents), one after the
    /// other, kept from the scan so names compare as bytes and nothing is decoded twice; an
    /// `escapedString` node's ``Node/decodedRange`` says where its own are.
    @usableFromInline package let decodedBytes: [UInt8]

    /// The decoded bytes of an `escapedString` node.
    @inlinable func decoded(_ node: Int) -> ArraySlice<UInt8> {
        decodedBytes[nodes[node].decodedRange]
    }

    /// Whether the document has whitespace outside its strings (before, between or after its
    /// tokens): false for minified JSON. A skipped byte-order mark is not whitespace.
    public let hasWhitespace: Bool

    /// Parses and validates a document (the same rules as ``JSONParser``).
    /// - Parameters:
    ///   - bytes: The UTF-8 encoded document.
    ///   - maximumDepth: The deepest nesting of arrays and objects accepted.
    ///   - allowsByteOrderMark: Whether a UTF-8 byte-order mark at the very start is skipped; when
    ///     false it is an unexpected byte at offset 0, as RFC 8259 §8.1 lets a parser decide.
    public init(_ bytes: [UInt8], maximumDepth: Int = 512, allowsByteOrderMark: Bool = true) throws(JSONParseError) {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> ([Node], [UInt8], Bool) in
                var builder = JSONTapeBuilder(input: buffer, maximumDepth: maximumDepth, allowsByteOrderMark: allowsByteOrderMark)
                try builder.buildTape()
                return (builder.nodes, builder.decodedBytes, builder.sawWhitespace)
            }
        }
        self.bytes = bytes
        (self.nodes, self.decodedBytes, self.hasWhitespace) = try result.get()
    }

    /// The string of a `string` or `escapedString` node (escapes resolved).
    public func string(at node: Int) -> String {
        let item = nodes[node]
        if item.kind == .escapedString {
            return String(decoding: decoded(node), as: UTF8.self)
        }
        return bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[Int(item.start)..<Int(item.start + item.length)]), as: UTF8.self)
        }
    }

    /// The lexical text of a number node.
    public func numberText(at node: Int) -> String {
        let item = nodes[node]
        return bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[Int(item.start)..<Int(item.start + item.length)]), as: UTF8.self)
        }
    }

    /// Whether a key node's text equals `key` (compared as UTF-8 bytes, escapes resolved if any).
    /// With `skippingFirstByte`, the node's first byte (a `_`) is left out of the comparison.
    @inlinable public func keyEquals(_ node: Int, _ key: String, skippingFirstByte: Bool = false) -> Bool {
        let item = nodes[node]
        let skip = skippingFirstByte ? 1 : 0
        if item.kind == .escapedString {
            let decoded = decoded(node)
            guard decoded.count >= skip else { return false }
            return decoded.dropFirst(skip).elementsEqual(key.utf8)
        }
        var key = key
        return key.withUTF8 { keyBytes in
            guard keyBytes.count == Int(item.length) - skip else { return false }
            return bytes.withUnsafeBufferPointer { buffer in
                var offset = 0
                let start = Int(item.start) + skip
                while offset < keyBytes.count {
                    if buffer[start + offset] != keyBytes[offset] { return false }
                    offset += 1
                }
                return true
            }
        }
    }

    /// Whether the string (or member name) at `node` is exactly `text`'s bytes, escapes resolved.
    @inlinable public func stringEquals(_ node: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let item = nodes[node]
        guard let expected = text.baseAddress else {
            return item.kind == .escapedString ? item.decodedRange.isEmpty : item.length == 0
        }
        if item.kind == .escapedString {
            return decodedBytesEqual(item, expected, count: text.count)
        }
        guard Int(item.length) == text.count else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, Int(item.start) + text.count <= buffer.count else { return false }
            return Self.bytesEqual(base + Int(item.start), expected, count: text.count)
        }
    }

    /// The name filter of an object's members (one bit per name, chosen by its length, first and
    /// last byte, escapes resolved), and whether any name starts with `_` (a primitive's
    /// companion), in one pass over the names. The tape records the same for every object while
    /// scanning (``Node/memberFilter``, ``Node/hasUnderscoreNames``); this recomputes it.
    @inlinable public func memberSummary(object: Int, count: Int) -> (filter: UInt64, hasUnderscoreNames: Bool) {
        nodes.withUnsafeBufferPointer { nodes in
            bytes.withUnsafeBufferPointer { bytes in
                var filter: UInt64 = 0
                var underscore = false
                var keyNode = object + 1
                for _ in 0..<count {
                    let item = nodes[keyNode]
                    let length = Int(item.length)
                    if item.kind == .escapedString {
                        let decoded = decodedBytes[item.decodedRange]
                        if let first = decoded.first, let last = decoded.last {
                            filter |= JSONTape.nameFilterBit(length: decoded.count, first: first, last: last)
                            underscore = underscore || first == UInt8(ascii: "_")
                        } else {
                            filter |= JSONTape.nameFilterBit(length: 0, first: 0, last: 0)
                        }
                    } else if length > 0 {
                        let first = bytes[Int(item.start)]
                        filter |= JSONTape.nameFilterBit(length: length, first: first, last: bytes[Int(item.start) + length - 1])
                        underscore = underscore || first == UInt8(ascii: "_")
                    } else {
                        filter |= JSONTape.nameFilterBit(length: 0, first: 0, last: 0)
                    }
                    keyNode = Int(nodes[keyNode + 1].end)
                }
                return (filter, underscore)
            }
        }
    }

    /// The first byte of a member name, escapes resolved (0 for an empty name).
    @inlinable public func keyFirstByte(_ node: Int) -> UInt8 {
        let item = nodes[node]
        if item.kind == .escapedString { return decoded(node).first ?? 0 }
        return item.length > 0 ? bytes[Int(item.start)] : 0
    }

    /// A tape holding `{}`.
    public static let emptyObject: JSONTape = JSONTape(emptyObjectBytes: ())

    private init(emptyObjectBytes: Void) {
        bytes = Array("{}".utf8)
        nodes = [Node(kind: .object, start: 0, length: 0, end: 1)]
        decodedBytes = []
        hasWhitespace = false
    }

    /// The JSON kind name of a node, for error messages.
    public func kindName(at node: Int) -> String {
        switch nodes[node].kind {
        case .null: "null"
        case .false, .true: "boolean"
        case .number: "number"
        case .string, .escapedString: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// A scalar node as a ``JSONValue`` (containers become empty; use ``value(at:)`` for trees).
    public func scalar(at node: Int) -> JSONValue {
        switch nodes[node].kind {
        case .null: .null
        case .false: .bool(false)
        case .true: .bool(true)
        case .number: .number(numberText(at: node))
        case .string, .escapedString: .string(string(at: node))
        case .array: .array([])
        case .object: .object(JSONObject())
        }
    }

    /// The value at `node` as a tree. Builds iteratively, so deep documents do not use deep stacks.
    public func value(at node: Int) -> JSONValue {
        struct Frame {
            var isObject: Bool
            var remaining: Int
            var elements: [JSONValue] = []
            var members: [JSONMember] = []
            var pendingKey = ""
        }
        var frames: [Frame] = []
        var index = node
        while true {
            var value: JSONValue
            let item = nodes[index]
            switch item.kind {
            case .array, .object:
                if item.length == 0 {
                    value = item.kind == .array ? .array([]) : .object(JSONObject())
                    index += 1
                } else {
                    var frame = Frame(isObject: item.kind == .object, remaining: Int(item.length))
                    if frame.isObject {
                        frame.members.reserveCapacity(frame.remaining)
                        frame.pendingKey = string(at: index + 1)
                        index += 2
                    } else {
                        frame.elements.reserveCapacity(frame.remaining)
                        index += 1
                    }
                    frames.append(frame)
                    continue
                }
            default:
                value = scalar(at: index)
                index += 1
            }
            // Attach the finished value; finish every container it completes.
            while let top = frames.indices.last {
                if frames[top].isObject {
                    frames[top].members.append(JSONMember(key: frames[top].pendingKey, value: value))
                } else {
                    frames[top].elements.append(value)
                }
                frames[top].remaining -= 1
                if frames[top].remaining > 0 {
                    if frames[top].isObject {
                        frames[top].pendingKey = string(at: index)
                        index += 1
                    }
                    break
                }
                let frame = frames.removeLast()
                value = frame.isObject ? .object(JSONObject(members: frame.members)) : .array(frame.elements)
            }
            if frames.isEmpty { return value }
        }
    }
}
