import Foundation

/// A parsed JSON document kept as its bytes plus a flat array of tokens in document order
/// (a "tape"), so that verification can read claims and walk a FHIR bundle without building a
/// tree of strings and arrays. ``SHCJSONValue`` is materialized from it on demand.
///
/// Parsing is strict RFC 8259: valid UTF-8, no lone surrogates, no duplicate member names,
/// nesting no deeper than the limit. Tokens: an object or array token is followed by its
/// children (for objects, each member is a key string token followed by the value's tokens);
/// every token records the index just past its subtree (`next`).
///
/// The bytes and tokens live in memory the tape owns and never mutates after `init`, which is
/// why it is `@unchecked Sendable`; readers use raw pointers so the hot path has no bounds checks
/// or reference counting.
final class SHCJSONTape: @unchecked Sendable {
    enum Kind: UInt8 {
        case null, `true`, `false`, number, string, array, object
    }

    /// Member names the verifier looks for, recognised once while parsing.
    enum Key: UInt8 {
        case other = 0
        case id, meta, text, coding, display, reference, resourceType, fullUrl, resource, entry, contained
        case status, occurrenceDateTime, occurrenceString, security, type, credentialSubject, fhirBundle
        case fhirVersion, rid, iss, nbf, exp, vc, context

        static func classify(_ pointer: UnsafePointer<UInt8>, _ count: Int) -> Key {
            @inline(__always) func equals(_ text: StaticString, _ key: Key) -> Key {
                memcmp(pointer, text.utf8Start, count) == 0 ? key : .other
            }
            guard count >= 2, count <= 18 else { return .other }
            let first = pointer[0], second = pointer[1]
            switch (count, first) {
            case (2, UInt8(ascii: "i")): return second == UInt8(ascii: "d") ? .id : .other
            case (2, UInt8(ascii: "v")): return second == UInt8(ascii: "c") ? .vc : .other
            case (3, UInt8(ascii: "r")): return equals("rid", .rid)
            case (3, UInt8(ascii: "i")): return equals("iss", .iss)
            case (3, UInt8(ascii: "n")): return equals("nbf", .nbf)
            case (3, UInt8(ascii: "e")): return equals("exp", .exp)
            case (4, UInt8(ascii: "m")): return equals("meta", .meta)
            case (4, UInt8(ascii: "t")): return second == UInt8(ascii: "e") ? equals("text", .text) : equals("type", .type)
            case (5, UInt8(ascii: "e")): return equals("entry", .entry)
            case (6, UInt8(ascii: "c")): return equals("coding", .coding)
            case (6, UInt8(ascii: "s")): return equals("status", .status)
            case (7, UInt8(ascii: "d")): return equals("display", .display)
            case (7, UInt8(ascii: "f")): return equals("fullUrl", .fullUrl)
            case (8, UInt8(ascii: "r")): return equals("resource", .resource)
            case (8, UInt8(ascii: "s")): return equals("security", .security)
            case (8, UInt8(ascii: "@")): return equals("@context", .context)
            case (9, UInt8(ascii: "r")): return equals("reference", .reference)
            case (9, UInt8(ascii: "c")): return equals("contained", .contained)
            case (10, UInt8(ascii: "f")): return equals("fhirBundle", .fhirBundle)
            case (11, UInt8(ascii: "f")): return equals("fhirVersion", .fhirVersion)
            case (12, UInt8(ascii: "r")): return equals("resourceType", .resourceType)
            case (16, UInt8(ascii: "o")): return equals("occurrenceString", .occurrenceString)
            case (17, UInt8(ascii: "c")): return equals("credentialSubject", .credentialSubject)
            case (18, UInt8(ascii: "o")): return equals("occurrenceDateTime", .occurrenceDateTime)
            default: return .other
            }
        }
    }

    struct Token {
        var kind: Kind
        /// For strings: the text has escapes (slow path when reading it).
        var escaped: Bool
        /// For member names: which known name it is.
        var key: Key
        /// For strings, the range inside the quotes; for numbers, the literal; for containers,
        /// from the opening to just past the closing bracket.
        var start: Int32
        var end: Int32
        /// The index of the first token after this one's subtree.
        var next: Int32
        /// Members of an object or elements of an array.
        var count: Int32
    }

    /// The document text.
    let bytes: [UInt8]
    /// Whether whitespace appeared between tokens (the text is not minified).
    let sawWhitespace: Bool
    private let text: UnsafeMutablePointer<UInt8>
    private let tokens: UnsafeMutablePointer<Token>
    /// The number of tokens.
    let tokenCount: Int

    init(_ bytes: [UInt8], maxDepth: Int) throws(SHCJSONError) {
        guard bytes.count < Int(Int32.max) else { throw SHCJSONError(.tooDeep, at: 0) }
        var builder = Builder(maxDepth: maxDepth, capacity: bytes.count / 8 + 8)
        do {
            try bytes.withUnsafeBufferPointer { (buffer) throws(SHCJSONError) in
                try builder.parseDocument(buffer)
            }
        } catch {
            builder.tokens.deallocate()
            throw error
        }
        self.bytes = bytes
        sawWhitespace = builder.sawWhitespace
        let text = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
        bytes.withUnsafeBufferPointer { buffer in
            if let source = buffer.baseAddress { text.initialize(from: source, count: buffer.count) }
        }
        self.text = text
        tokens = builder.tokens.base
        tokenCount = builder.tokens.count
    }

    deinit {
        text.deallocate()
        tokens.deallocate()
    }

    @inline(__always) func key(_ index: Int) -> Key { tokens[index].key }

    /// The value index of the member whose name is the known `key`.
    func member(_ index: Int, _ key: Key) -> Int? {
        guard tokens[index].kind == .object else { return nil }
        var keyIndex = index + 1
        for _ in 0..<tokens[index].count {
            if tokens[keyIndex].key == key { return keyIndex + 1 }
            keyIndex = Int(tokens[keyIndex + 1].next)
        }
        return nil
    }

    // MARK: Reading

    @inline(__always) func kind(_ index: Int) -> Kind { tokens[index].kind }
    @inline(__always) func count(_ index: Int) -> Int { Int(tokens[index].count) }
    @inline(__always) func next(_ index: Int) -> Int { Int(tokens[index].next) }

    /// Calls `body(keyIndex, valueIndex)` for each member of the object at `index`.
    @inline(__always)
    func forEachMember(_ index: Int, _ body: (Int, Int) throws -> Void) rethrows {
        guard tokens[index].kind == .object else { return }
        var key = index + 1
        for _ in 0..<tokens[index].count {
            try body(key, key + 1)
            key = Int(tokens[key + 1].next)
        }
    }

    /// Calls `body(position, elementIndex)` for each element of the array at `index`.
    @inline(__always)
    func forEachElement(_ index: Int, _ body: (Int, Int) throws -> Void) rethrows {
        guard tokens[index].kind == .array else { return }
        var element = index + 1
        for position in 0..<Int(tokens[index].count) {
            try body(position, element)
            element = Int(tokens[element].next)
        }
    }

    /// The value index of member `key` of the object at `index`.
    func member(_ index: Int, _ key: StaticString) -> Int? {
        guard tokens[index].kind == .object else { return nil }
        var keyIndex = index + 1
        for _ in 0..<tokens[index].count {
            if stringEquals(keyIndex, key) { return keyIndex + 1 }
            keyIndex = Int(tokens[keyIndex + 1].next)
        }
        return nil
    }

    /// Whether the string token at `index` equals `text`.
    func stringEquals(_ index: Int, _ expected: StaticString) -> Bool {
        let token = tokens[index]
        guard token.kind == .string else { return false }
        if token.escaped { return string(index) == String(decoding: UnsafeBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount), as: UTF8.self) }
        let length = Int(token.end - token.start)
        guard length == expected.utf8CodeUnitCount else { return false }
        return memcmp(text + Int(token.start), expected.utf8Start, length) == 0
    }

    /// Whether the string token at `index` has the prefix `text` (unescaped strings only).
    func stringHasPrefix(_ index: Int, _ text: StaticString) -> Bool {
        let token = tokens[index]
        guard token.kind == .string, !token.escaped, Int(token.end - token.start) >= text.utf8CodeUnitCount else {
            return token.kind == .string && token.escaped && string(index).hasPrefix(String(decoding: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), as: UTF8.self))
        }
        let start = Int(token.start)
        let pointer = text.utf8Start
        return memcmp(self.text + start, pointer, text.utf8CodeUnitCount) == 0
    }

    /// Whether the string token at `index` is empty.
    func stringIsEmpty(_ index: Int) -> Bool {
        tokens[index].kind == .string && tokens[index].start == tokens[index].end
    }

    /// Two string tokens with the same text.
    func stringsEqual(_ lhs: Int, _ rhs: Int) -> Bool {
        let a = tokens[lhs], b = tokens[rhs]
        if a.escaped || b.escaped { return string(lhs) == string(rhs) }
        guard a.end - a.start == b.end - b.start else { return false }
        return memcmp(text + Int(a.start), text + Int(b.start), Int(a.end - a.start)) == 0
    }

    /// The text of a string token (or of a number token's literal).
    func string(_ index: Int) -> String {
        let token = tokens[index]
        let range = Int(token.start)..<Int(token.end)
        guard token.escaped else {
            return String(decoding: UnsafeBufferPointer(start: text + range.lowerBound, count: range.count), as: UTF8.self)
        }
        return SHCJSONTape.unescape(bytes[range])
    }

    /// The string at `index`, or nil when it is not a string.
    func stringValue(_ index: Int?) -> String? {
        guard let index, tokens[index].kind == .string else { return nil }
        return string(index)
    }

    /// The bytes of the value at `index` exactly as in the document (containers with brackets,
    /// strings with quotes).
    func rawBytes(_ index: Int) -> ArraySlice<UInt8> {
        let token = tokens[index]
        switch token.kind {
        case .string: return bytes[Int(token.start - 1)..<Int(token.end + 1)]
        default: return bytes[Int(token.start)..<Int(token.end)]
        }
    }

    /// The subtree at `index` as a value.
    func value(_ index: Int) -> SHCJSONValue {
        let token = tokens[index]
        switch token.kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .number: return .number(string(index))
        case .string: return .string(string(index))
        case .array:
            var elements: [SHCJSONValue] = []
            elements.reserveCapacity(Int(token.count))
            forEachElement(index) { _, element in elements.append(value(element)) }
            return .array(elements)
        case .object:
            var members: [SHCJSONValue.Member] = []
            members.reserveCapacity(Int(token.count))
            forEachMember(index) { key, member in members.append(.init(string(key), value(member))) }
            return .object(members)
        }
    }

    /// Decodes escapes of an already validated string body.
    private static func unescape(_ body: ArraySlice<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(body.count)
        var index = body.startIndex
        func hex(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for byte in body[at..<(at + 4)] {
                let digit: UInt8 = switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                default: byte - UInt8(ascii: "A") + 10
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while index < body.endIndex {
            let byte = body[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            let escape = body[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex(index)
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = hex(index + 2)
                    index += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                if let unicode = Unicode.Scalar(scalar), let encoded = UTF8.encode(unicode) {
                    output.append(contentsOf: encoded)
                }
            default: output.append(escape)   // \" \\ \/
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: Parsing

    /// A growable token array in memory the tape takes over (no copy, no reference counting).
    private struct TokenBuffer {
        var base: UnsafeMutablePointer<Token>
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            self.capacity = max(8, capacity)
            base = UnsafeMutablePointer<Token>.allocate(capacity: self.capacity)
        }

        @inline(__always)
        mutating func append(_ token: Token) {
            if count == capacity {
                let grown = UnsafeMutablePointer<Token>.allocate(capacity: capacity * 2)
                grown.moveInitialize(from: base, count: count)
                base.deallocate()
                base = grown
                capacity *= 2
            }
            (base + count).initialize(to: token)
            count += 1
        }

        @inline(__always)
        subscript(index: Int) -> Token {
            get { base[index] }
            nonmutating set { base[index] = newValue }
        }

        func deallocate() { base.deallocate() }
    }

    private struct Builder {
        var tokens: TokenBuffer
        var sawWhitespace = false
        let maxDepth: Int
        var depth = 0
        var index = 0

        init(maxDepth: Int, capacity: Int) {
            self.maxDepth = maxDepth
            tokens = TokenBuffer(capacity: capacity)
        }

        mutating func parseDocument(_ bytes: UnsafeBufferPointer<UInt8>) throws(SHCJSONError) {
            skipWhitespace(bytes)
            try parseValue(bytes)
            skipWhitespace(bytes)
            guard index == bytes.count else { throw SHCJSONError(.trailingContent, at: index) }
        }

        @inline(__always)
        mutating func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>) {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09:
                    sawWhitespace = true
                    index += 1
                default:
                    return
                }
            }
        }

        mutating func append(_ kind: Kind, _ start: Int, _ end: Int, escaped: Bool = false) {
            let position = Int32(tokens.count)
            tokens.append(Token(kind: kind, escaped: escaped, key: .other, start: Int32(start), end: Int32(end), next: position + 1, count: 0))
        }

        mutating func parseValue(_ bytes: UnsafeBufferPointer<UInt8>) throws(SHCJSONError) {
            guard index < bytes.count else { throw SHCJSONError(.unexpectedEnd, at: index) }
            switch bytes[index] {
            case UInt8(ascii: "{"): try parseObject(bytes)
            case UInt8(ascii: "["): try parseArray(bytes)
            case UInt8(ascii: "\""): try parseString(bytes)
            case UInt8(ascii: "t"): try literal(bytes, "true", .true)
            case UInt8(ascii: "f"): try literal(bytes, "false", .false)
            case UInt8(ascii: "n"): try literal(bytes, "null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber(bytes)
            default: throw SHCJSONError(.unexpectedCharacter, at: index)
            }
        }

        mutating func literal(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString, _ kind: Kind) throws(SHCJSONError) {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count else { throw SHCJSONError(.unexpectedEnd, at: index) }
            for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] {
                throw SHCJSONError(.unexpectedCharacter, at: index + offset)
            }
            append(kind, index, index + count)
            index += count
        }

        mutating func parseObject(_ bytes: UnsafeBufferPointer<UInt8>) throws(SHCJSONError) {
            depth += 1
            if depth > maxDepth { throw SHCJSONError(.tooDeep, at: index) }
            let position = tokens.count
            append(.object, index, index)
            index += 1
            var count: Int32 = 0
            var seenKeys: Set<[UInt8]>?
            skipWhitespace(bytes)
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
            } else {
                while true {
                    skipWhitespace(bytes)
                    guard index < bytes.count else { throw SHCJSONError(.unexpectedEnd, at: index) }
                    guard bytes[index] == UInt8(ascii: "\"") else { throw SHCJSONError(.unexpectedCharacter, at: index) }
                    let keyOffset = index
                    let keyIndex = tokens.count
                    try parseString(bytes)
                    tokens[keyIndex].key = classify(bytes, tokens[keyIndex])
                    // Duplicate member names: compared with the earlier names while an object is
                    // small (every real card's are), through a set of the decoded names past that,
                    // so an object of n members costs O(n), not O(n²) unescapings.
                    if count < Self.directKeyComparisons {
                        var earlier = position + 1
                        for _ in 0..<count {
                            if equalKeys(bytes, earlier, keyIndex) { throw SHCJSONError(.duplicateKey, at: keyOffset) }
                            earlier = Int(tokens[earlier + 1].next)
                        }
                    } else {
                        if seenKeys == nil {
                            // Sized for the rest of the input (about one member per 12 bytes), so a
                            // large object never rehashes as it grows.
                            var names = Set<[UInt8]>(minimumCapacity: min((bytes.count - index) / 12 + Int(count), 1 << 22))
                            var earlier = position + 1
                            for _ in 0..<count {
                                names.insert(decodedKey(bytes, earlier))
                                earlier = Int(tokens[earlier + 1].next)
                            }
                            seenKeys = names
                        }
                        if seenKeys?.insert(decodedKey(bytes, keyIndex)).inserted == false {
                            throw SHCJSONError(.duplicateKey, at: keyOffset)
                        }
                    }
                    skipWhitespace(bytes)
                    guard index < bytes.count else { throw SHCJSONError(.unexpectedEnd, at: index) }
                    guard bytes[index] == UInt8(ascii: ":") else { throw SHCJSONError(.unexpectedCharacter, at: index) }
                    index += 1
                    skipWhitespace(bytes)
                    try parseValue(bytes)
                    count += 1
                    skipWhitespace(bytes)
                    guard index < bytes.count else { throw SHCJSONError(.unexpectedEnd, at: index) }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                    } else if bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        break
                    } else {
                        throw SHCJSONError(.unexpectedCharacter, at: index)
                    }
                }
            }
            tokens[position].end = Int32(index)
            tokens[position].count = count
            tokens[position].next = Int32(tokens.count)
            depth -= 1
        }

        func classify(_ bytes: UnsafeBufferPointer<UInt8>, _ token: Token) -> Key {
            guard let base = bytes.baseAddress else { return .other }
            guard token.escaped else { return Key.classify(base + Int(token.start), Int(token.end - token.start)) }
            var name = Array(SHCJSONTape.unescape(Array(bytes[Int(token.start)..<Int(token.end)])[...]).utf8)
            return name.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { Key.classify($0, buffer.count) } ?? .other
            }
        }

        /// Up to this many members, a new name is compared with each earlier one.
        static let directKeyComparisons: Int32 = 16

        /// A member name's bytes with its escapes resolved.
        func decodedKey(_ bytes: UnsafeBufferPointer<UInt8>, _ token: Int) -> [UInt8] {
            let key = tokens[token]
            let raw = Array(bytes[Int(key.start)..<Int(key.end)])
            return key.escaped ? Array(SHCJSONTape.unescape(raw[...]).utf8) : raw
        }

        func equalKeys(_ bytes: UnsafeBufferPointer<UInt8>, _ lhs: Int, _ rhs: Int) -> Bool {
            let a = tokens[lhs], b = tokens[rhs]
            if a.escaped || b.escaped {
                // Names are equal when their code points are (RFC 8259), not when Swift's String
                // equality (canonical equivalence) says so.
                return decodedKey(bytes, lhs) == decodedKey(bytes, rhs)
            }
            guard a.end - a.start == b.end - b.start else { return false }
            var i = Int(a.start), j = Int(b.start)
            while i < Int(a.end) {
                if bytes[i] != bytes[j] { return false }
                i += 1
                j += 1
            }
            return true
        }

        mutating func parseArray(_ bytes: UnsafeBufferPointer<UInt8>) throws(SHCJSONError) {
            depth += 1
            if depth > maxDepth { throw SHCJSONError(.tooDeep, at: index) }
            let position = tokens.count
            append(.array, index, index)
            index += 1
            var count: Int32 = 0
            skipWhitespace(bytes)
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
            } else {
                while true {
                    skipWhitespace(bytes)
                    try parseValue(bytes)
                    count += 1
                    skipWhitespace(bytes)
                    guard index < bytes.count else { throw SHCJSONError(.unexpectedEnd, at: index) }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                    } else if bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        break
                    } else {
                        throw SHCJSONError(.unexpectedCharacter, at: index)
                    }
                }
            }
            tokens[position].end = Int32(index)
            tokens[position].count = count
            tokens[position].next = Int32(tokens.count)
            depth -= 1
        }

        @inline(__always)
        func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

        mutating func parseNumber(_ bytes: UnsafeBufferPointer<UInt8>) throws(SHCJSONError) {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { throw SHCJSONError(.unexpectedEnd, at: index) }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else if isDigit(bytes[index]) {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            } else {
                throw SHCJSONError(.invalidNumber, at: start)
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw SHCJSONError(.invalidNumber, at: start) }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, isDigit(bytes[index]) else { throw SHCJSONError(.invalidNumber, at: start) }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            append(.number, start, index)
        }

        mutating func parseString(_ bytes: UnsafeBufferPointer<UInt8>) throws(SHCJSONError) {
            index += 1
            let start = index
            var escaped = false
            var highBytes = false
            while true {
                // Skip 8 plain bytes at a time: no quote, backslash, control or non-ASCII byte.
                if let base = bytes.baseAddress {
                    while index + 8 <= bytes.count {
                        let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                        let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                        let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                            | ((word &- ones &* 0x20) & ~word) | word
                        if special & highs != 0 { break }
                        index += 8
                    }
                }
                guard index < bytes.count else { throw SHCJSONError(.unexpectedEnd, at: index) }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") { break }
                if byte < 0x20 { throw SHCJSONError(.controlCharacter, at: index) }
                if byte >= 0x80 {
                    highBytes = true
                    index += 1
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                    try validateEscape(bytes)
                } else {
                    index += 1
                }
            }
            if highBytes, String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) == nil {
                throw SHCJSONError(.invalidUTF8, at: start)
            }
            append(.string, start, index, escaped: escaped)
            index += 1
        }

        /// Validates one escape sequence starting at the backslash and moves past it.
        mutating func validateEscape(_ bytes: UnsafeBufferPointer<UInt8>) throws(SHCJSONError) {
            index += 1
            guard index < bytes.count else { throw SHCJSONError(.unexpectedEnd, at: index) }
            switch bytes[index] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                index += 1
            case UInt8(ascii: "u"):
                index += 1
                let scalar = try hex4(bytes)
                if (0xD800...0xDBFF).contains(scalar) {
                    guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw SHCJSONError(.invalidEscape, at: index)
                    }
                    index += 2
                    let low = try hex4(bytes)
                    guard (0xDC00...0xDFFF).contains(low) else { throw SHCJSONError(.invalidEscape, at: index) }
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw SHCJSONError(.invalidEscape, at: index)
                }
            default:
                throw SHCJSONError(.invalidEscape, at: index)
            }
        }

        mutating func hex4(_ bytes: UnsafeBufferPointer<UInt8>) throws(SHCJSONError) -> UInt32 {
            guard bytes.count - index >= 4 else { throw SHCJSONError(.unexpectedEnd, at: index) }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw SHCJSONError(.invalidEscape, at: index)
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }
    }
}
