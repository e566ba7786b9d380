/// The scanning engine behind ``JSONParser`` and ``JSONTape``: a cursor over UTF-8 bytes that
/// validates the whole document and records it as tape nodes (no `String` is created here).
///
/// Every read is preceded by an explicit `index < end` check, so any byte sequence either parses or
/// throws. Nesting is handled with an explicit stack of open containers rather than recursion, so
/// stack use does not grow with the depth of the document (which is still capped at `maximumDepth`).
struct JSONTapeBuilder {
    /// An array or object being filled: its node and how many members or elements it has so far.
    private struct Container {
        var node: Int
        var isObject: Bool
        var count = 0
        /// One bit per key seen, chosen by the key's length, first and last byte: a new key whose
        /// bit is clear cannot be a duplicate, so most keys need no comparison at all.
        var keyFilter: UInt64 = 0
        /// The second name filter (``JSONTape/secondNameFilterBit(_:)``), for readers.
        var secondKeyFilter: UInt64 = 0
        /// Whether a key starting with `_` has been seen.
        var hasUnderscoreNames = false
        /// Whether this object's keys are indexed by hash (a large object with a key whose bit
        /// was already set): in ``currentKeyIndex`` while it is the innermost container, in
        /// ``keyIndexes`` while it encloses another. Kept out of the container so that opening
        /// and closing one copies plain values only, with no reference counting.
        var hasKeyIndex = false
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let end: Int
    private let maximumDepth: Int
    private let allowsByteOrderMark: Bool
    private var index = 0
    /// Whether any whitespace was skipped (the document is not minified).
    private(set) var sawWhitespace = false
    /// The innermost open container, kept out of the stack so counting a value touches no array.
    private var current = Container(node: -1, isObject: false)
    /// How many containers are open (`current` and the ones in `enclosing`).
    private var depth = 0
    /// The open containers around `current`, innermost last.
    private var enclosing: [Container] = []
    /// The innermost object's keys so far by the hash of their decoded bytes (the first key node
    /// with that hash), when it has ``Container/hasKeyIndex``. No key is copied: a hit is
    /// confirmed by comparing the two keys' bytes.
    private var currentKeyIndex: [Int: Int32] = [:]
    /// The key indexes of enclosing objects that have one, by their node (set aside while a
    /// nested container is open).
    private var keyIndexes: [Int: [Int: Int32]] = [:]
    /// Reused buffer for validating strings that contain escapes.
    private var scratch: [UInt8] = []
    /// The tape being written.
    private(set) var nodes: [JSONTape.Node] = []
    /// The decoded bytes of every string (member name or value) that has escapes, one after the
    /// other; each `escapedString` node records where its own are (``JSONTape/Node/decodedRange``).
    private(set) var decodedBytes: [UInt8] = []

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let comma = UInt8(ascii: ",")
    private static let colon = UInt8(ascii: ":")
    /// Objects up to this many members are checked for duplicate keys linearly; larger ones use a set.
    private static let linearKeyCheckLimit = 16

    init(input: UnsafeBufferPointer<UInt8>, maximumDepth: Int, allowsByteOrderMark: Bool = true) {
        self.bytes = input
        self.end = input.count
        self.maximumDepth = maximumDepth
        self.allowsByteOrderMark = allowsByteOrderMark
    }

    // MARK: Document

    /// Validates the document and fills ``nodes``.
    mutating func buildTape() throws(JSONParseError) {
        guard end < Int(Int32.max) else { throw error(.unexpectedEnd, at: 0) }
        if allowsByteOrderMark && end >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            index = 3
        }
        enclosing.reserveCapacity(16)
        nodes.reserveCapacity(end / 8 + 4)
        skipWhitespace()
        try parseValues()
        skipWhitespace()
        if index < end { throw error(.trailingContent, at: index) }
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        var i = index
        defer {
            if i != index { sawWhitespace = true }
            index = i
        }
        while i < end {
            let byte = bytes[i]
            // Pretty-printed documents indent with runs of spaces (in Synthea's bundles, dozens of
            // them, 57 % of the bytes): step over them sixteen bytes at a time, eight near the end.
            // Read little-endian, the lowest byte of a word that is not zero is the first byte that
            // is not a space, so its position gives the length of the run in this block.
            if byte == 0x20, i &+ 16 <= end, let base = bytes.baseAddress {
                let low = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) ^ 0x2020_2020_2020_2020
                let high = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(fromByteOffset: 8, as: UInt64.self)) ^ 0x2020_2020_2020_2020
                if low | high == 0 {
                    i &+= 16
                    continue
                }
                i &+= low != 0 ? low.trailingZeroBitCount &>> 3 : 8 &+ high.trailingZeroBitCount &>> 3
                continue
            }
            if byte == 0x20, i &+ 8 <= end, let base = bytes.baseAddress {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) ^ 0x2020_2020_2020_2020
                i &+= word == 0 ? 8 : word.trailingZeroBitCount &>> 3
                continue
            }
            switch byte {
            case 0x20, 0x0A, 0x0D, 0x09: i &+= 1
            default: return
            }
        }
    }

    @inline(__always)
    /// Appends `scratch` (a string's decoded bytes) to ``decodedBytes`` and records where in
    /// the string's node: one sequential append, no allocation or table entry per string.
    private mutating func recordDecoded(node: Int) {
        nodes[node].decodedRange = decodedBytes.count..<decodedBytes.count + scratch.count
        decodedBytes.append(contentsOf: scratch)
    }

    @inline(__always)
    private mutating func append(_ kind: JSONTape.Kind, start: Int, length: Int) {
        nodes.append(JSONTape.Node(kind: kind, start: Int32(truncatingIfNeeded: start),
                                   length: Int32(truncatingIfNeeded: length), end: Int32(truncatingIfNeeded: nodes.count + 1)))
    }

    /// Parses one complete value (with everything nested in it) starting at `index`.
    private mutating func parseValues() throws(JSONParseError) {
        while true {
            // Read the value that starts here; containers are opened and we loop for their content.
            guard index < end else { throw error(.unexpectedEnd, at: index) }
            let byte = bytes[index]
            switch byte {
            case Self.quote:
                let start = index + 1
                let escaped = try scanString()
                append(escaped ? .escapedString : .string, start: start, length: index - 1 - start)
                if escaped { recordDecoded(node: nodes.count - 1) }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                try scanNumber()
                append(.number, start: start, length: index - start)
            case UInt8(ascii: "["):
                try openContainer(isObject: false)
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    closeContainer()
                } else {
                    continue
                }
            case UInt8(ascii: "{"):
                try openContainer(isObject: true)
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    closeContainer()
                } else {
                    try parseKey()
                    continue
                }
            case UInt8(ascii: "t"):
                try consumeLiteral("true")
                append(.true, start: index - 4, length: 4)
            case UInt8(ascii: "f"):
                try consumeLiteral("false")
                append(.false, start: index - 5, length: 5)
            case UInt8(ascii: "n"):
                try consumeLiteral("null")
                append(.null, start: index - 4, length: 4)
            default:
                throw error(.unexpectedByte(byte), at: index)
            }

            // The value is complete: count it in its container; close containers that end here.
            while true {
                if depth == 0 { return }
                current.count += 1
                skipWhitespace()
                guard index < end else { throw error(.unexpectedEnd, at: index) }
                let next = bytes[index]
                index += 1
                if next == Self.comma {
                    skipWhitespace()
                    if current.isObject {
                        guard index < end else { throw error(.unexpectedEnd, at: index) }
                        try parseKey()
                    }
                    break
                }
                let isObject = current.isObject
                guard (isObject && next == UInt8(ascii: "}")) || (!isObject && next == UInt8(ascii: "]")) else {
                    throw error(.unexpectedByte(next), at: index - 1)
                }
                closeContainer()
            }
        }
    }

    private mutating func consumeLiteral(_ literal: StaticString) throws(JSONParseError) {
        let text = literal.utf8Start
        for offset in 0..<literal.utf8CodeUnitCount {
            guard index < end else { throw error(.unexpectedEnd, at: index) }
            let byte = bytes[index]
            guard byte == text[offset] else { throw error(.unexpectedByte(byte), at: index) }
            index += 1
        }
    }

    // MARK: Containers

    /// Pushes a container for the bracket at `index` and moves to its first non-blank byte.
    private mutating func openContainer(isObject: Bool) throws(JSONParseError) {
        if depth >= maximumDepth { throw error(.tooDeep(maximumDepth), at: index) }
        if depth > 0 {
            if current.hasKeyIndex {
                keyIndexes[current.node] = currentKeyIndex
                currentKeyIndex = [:]
            }
            enclosing.append(current)
        }
        current = Container(node: nodes.count, isObject: isObject)
        depth += 1
        append(isObject ? .object : .array, start: index, length: 0)
        index += 1
        skipWhitespace()
        guard index < end else { throw error(.unexpectedEnd, at: index) }
    }

    /// Pops the innermost container and records its member count and where its subtree ends.
    private mutating func closeContainer() {
        let container = current
        depth -= 1
        if depth > 0 { current = enclosing.removeLast() }
        var node = nodes[container.node]
        node.length = Int32(truncatingIfNeeded: container.count)
        node.end = Int32(truncatingIfNeeded: nodes.count)
        if container.hasKeyIndex { currentKeyIndex = [:] }
        if depth > 0 && current.hasKeyIndex { currentKeyIndex = keyIndexes.removeValue(forKey: current.node) ?? [:] }
        if container.isObject {
            node.memberFilter = container.keyFilter
            node.secondMemberFilter = container.secondKeyFilter
            node.hasUnderscoreNames = container.hasUnderscoreNames
        }
        nodes[container.node] = node
    }

    /// Reads `"key" :` for the innermost object (at a non-blank byte), checking for duplicates.
    private mutating func parseKey() throws(JSONParseError) {
        let keyStart = index
        guard bytes[index] == Self.quote else { throw error(.unexpectedByte(bytes[index]), at: index) }
        let start = index + 1
        let escaped = try scanString()
        let length = index - 1 - start
        let keyNode = nodes.count
        // The name's two filter bits, and whether it starts with `_`, from its decoded bytes (a
        // name with escapes is always checked for duplicates, but its bits are recorded so a later
        // plain spelling of it is checked too).
        let bit: UInt64
        let secondBit: UInt64
        let firstByte: UInt8?
        if escaped {
            append(.escapedString, start: start, length: length)
            recordDecoded(node: keyNode)
            (bit, secondBit) = scratch.withUnsafeBufferPointer { (JSONTape.nameFilterBit($0), JSONTape.secondNameFilterBit($0)) }
            firstByte = scratch.first
        } else {
            // The name's bytes were just scanned: its fingerprint goes into its node now, so that
            // readers compare names without reading the document again.
            var node = JSONTape.Node(kind: .string, start: Int32(truncatingIfNeeded: start),
                                     length: Int32(truncatingIfNeeded: length), end: Int32(truncatingIfNeeded: keyNode + 1))
            let name = UnsafeBufferPointer(rebasing: bytes[start..<start + length])
            if let base = name.baseAddress { node.keyFingerprint = JSONKeyFingerprint(base, count: length) }
            nodes.append(node)
            bit = JSONTape.nameFilterBit(name)
            secondBit = JSONTape.secondNameFilterBit(name)
            firstByte = name.first
        }
        let mayRepeat = escaped || current.keyFilter & bit != 0 || current.hasKeyIndex
        current.keyFilter |= bit
        current.secondKeyFilter |= secondBit
        if firstByte == UInt8(ascii: "_") { current.hasUnderscoreNames = true }
        if current.count > 0 && mayRepeat {
            try checkDuplicate(keyNode: keyNode, keyStart: keyStart)
        }
        skipWhitespace()
        guard index < end else { throw error(.unexpectedEnd, at: index) }
        guard bytes[index] == Self.colon else { throw error(.unexpectedByte(bytes[index]), at: index) }
        index += 1
        skipWhitespace()
    }

    /// Throws if the key at `keyNode` repeats an earlier one of the innermost object: compared
    /// with each earlier key in a small object, through a hash index of them in a large one.
    /// (Reached only for a key whose filter bit was already set, out of line so the common path
    /// stays small.)
    @inline(never)
    private mutating func checkDuplicate(keyNode: Int, keyStart: Int) throws(JSONParseError) {
        let count = current.count
        if count < Self.linearKeyCheckLimit && !current.hasKeyIndex {
            if let duplicate = earlierKey(equalTo: keyNode) { throw error(.duplicateKey(keyText(duplicate)), at: keyStart) }
            return
        }
        if !current.hasKeyIndex {
            var index: [Int: Int32] = [:]
            index.reserveCapacity(count * 2)
            var key = current.node + 1
            while key < keyNode {
                let hash = keyHash(key)
                if index[hash] == nil { index[hash] = Int32(truncatingIfNeeded: key) }
                key = Int(nodes[key + 1].end)
            }
            currentKeyIndex = index
            current.hasKeyIndex = true
        }
        // The new key's hash (of its decoded bytes).
        let hash = keyHash(keyNode)
        if let seen = currentKeyIndex[hash] {
            // The same hash: the same name, or (rarely) another name that collides, for
            // which every earlier key is compared.
            if sameKey(Int(seen), keyNode) || earlierKey(equalTo: keyNode) != nil {
                throw error(.duplicateKey(keyText(keyNode)), at: keyStart)
            }
        } else {
            currentKeyIndex[hash] = Int32(truncatingIfNeeded: keyNode)
        }
    }

    /// Whether two key nodes name the same member (escapes resolved when either has any).
    private func sameKey(_ a: Int, _ b: Int) -> Bool {
        let x = nodes[a], y = nodes[b]
        if x.kind == .string && y.kind == .string {
            guard x.length == y.length else { return false }
            var offset = 0
            while offset < Int(x.length) {
                if bytes[Int(x.start) + offset] != bytes[Int(y.start) + offset] { return false }
                offset += 1
            }
            return true
        }
        return keyBytes(a) == keyBytes(b)
    }

    /// The first earlier key of the current object with the same bytes as `keyNode`, if any
    /// (walking key, value subtree, next key…).
    private func earlierKey(equalTo keyNode: Int) -> Int? {
        var key = current.node + 1
        while key < keyNode {
            if sameKey(key, keyNode) { return key }
            key = Int(nodes[key + 1].end)
        }
        return nil
    }

    /// The hash of a key node's decoded bytes, without copying them.
    private func keyHash(_ node: Int) -> Int {
        var hasher = Hasher()
        if nodes[node].kind == .escapedString {
            decodedBytes[nodes[node].decodedRange].withUnsafeBytes { hasher.combine(bytes: $0) }
        } else {
            let item = nodes[node]
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[Int(item.start)..<Int(item.start + item.length)])))
        }
        return hasher.finalize()
    }

    /// The decoded bytes of a key node (names compare as bytes, never by Unicode equivalence).
    private func keyBytes(_ node: Int) -> [UInt8] {
        if nodes[node].kind == .escapedString { return Array(decodedBytes[nodes[node].decodedRange]) }
        let item = nodes[node]
        return Array(bytes[Int(item.start)..<Int(item.start + item.length)])
    }

    /// The text of a key node (for error messages).
    private func keyText(_ node: Int) -> String {
        String(decoding: keyBytes(node), as: UTF8.self)
    }

    // MARK: Strings

    /// Validates a string whose opening quote is at `index` and steps past its closing quote.
    /// - Returns: whether it contains escapes.
    private mutating func scanString() throws(JSONParseError) -> Bool {
        index += 1
        let start = index
        // Eight bytes at a time while none of them is a quote, a backslash, a control character
        // or non-ASCII (SWAR: a byte of `x ^ pattern` is zero where `x` has that byte); the loop
        // below handles the block that has one.
        if let base = bytes.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while index &+ 8 <= end {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let quotes = word ^ (ones &* UInt64(Self.quote))
                let backslashes = word ^ (ones &* UInt64(Self.backslash))
                let special = (((quotes &- ones) & ~quotes)
                    | ((backslashes &- ones) & ~backslashes)
                    | (word &- ones &* 0x20)
                    | word) & highs
                if special != 0 {
                    // Borrows only reach higher bytes, so the lowest flagged byte is a real one:
                    // step to it and let the loop below deal with it.
                    index &+= special.trailingZeroBitCount &>> 3
                    break
                }
                index &+= 8
            }
        }
        while index < end {
            let byte = bytes[index]
            if byte == Self.quote {
                index += 1
                return false
            }
            if byte == Self.backslash {
                try scanEscapedString(from: start)
                return true
            }
            if byte < 0x20 { throw error(.controlCharacterInString, at: index) }
            if byte >= 0x80 {
                try skipUTF8Sequence()
            } else {
                index += 1
            }
        }
        throw error(.unexpectedEnd, at: index)
    }

    /// Continues a string at its first backslash, validating its escapes (decoded into the scratch
    /// buffer, which checks surrogate pairs the same way reading does later).
    private mutating func scanEscapedString(from start: Int) throws(JSONParseError) {
        scratch.removeAll(keepingCapacity: true)
        var runStart = start
        while index < end {
            let byte = bytes[index]
            if byte == Self.quote {
                appendRun(from: runStart)
                index += 1
                return
            }
            if byte == Self.backslash {
                appendRun(from: runStart)
                try parseEscape()
                runStart = index
            } else if byte < 0x20 {
                throw error(.controlCharacterInString, at: index)
            } else if byte >= 0x80 {
                try skipUTF8Sequence()
            } else {
                index += 1
            }
        }
        throw error(.unexpectedEnd, at: index)
    }

    @inline(__always)
    private mutating func appendRun(from runStart: Int) {
        if runStart < index {
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        }
    }

    /// Decodes the escape whose backslash is at `index` into the scratch buffer.
    private mutating func parseEscape() throws(JSONParseError) {
        let escapeStart = index
        index += 1
        guard index < end else { throw error(.unexpectedEnd, at: index) }
        let byte = bytes[index]
        index += 1
        switch byte {
        case Self.quote, Self.backslash, UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4()
            let scalar: UInt32
            if unit >= 0xD800 && unit <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index < end else { throw error(.unexpectedEnd, at: index) }
                guard bytes[index] == Self.backslash else { throw error(.invalidUnicode, at: escapeStart) }
                guard index + 1 < end else { throw error(.unexpectedEnd, at: index + 1) }
                guard bytes[index + 1] == UInt8(ascii: "u") else { throw error(.invalidUnicode, at: escapeStart) }
                index += 2
                let low = try parseHex4()
                guard low >= 0xDC00 && low <= 0xDFFF else { throw error(.invalidUnicode, at: escapeStart) }
                scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw error(.invalidUnicode, at: escapeStart)
            } else {
                scalar = unit
            }
            appendUTF8(scalar)
        default:
            throw error(.invalidEscape, at: escapeStart)
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < end else { throw error(.unexpectedEnd, at: index) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: throw error(.invalidEscape, at: index)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(truncatingIfNeeded: scalar))
        case 0x80..<0x800:
            scratch.append(0xC0 | UInt8(truncatingIfNeeded: scalar >> 6))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(0xE0 | UInt8(truncatingIfNeeded: scalar >> 12))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: (scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(truncatingIfNeeded: scalar >> 18))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: (scalar >> 12) & 0x3F))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: (scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
        }
    }

    /// Validates one multi-byte UTF-8 sequence (RFC 3629) whose lead byte is at `index` and steps past it.
    @inline(__always)
    private mutating func skipUTF8Sequence() throws(JSONParseError) {
        let lead = bytes[index]
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondHigh = 0x9F
        case 0xF0: length = 4; secondLow = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondHigh = 0x8F
        default: throw error(.invalidUnicode, at: index)
        }
        guard index + 1 < end else { throw error(.unexpectedEnd, at: end) }
        let second = bytes[index + 1]
        guard second >= secondLow && second <= secondHigh else { throw error(.invalidUnicode, at: index) }
        var offset = 2
        while offset < length {
            guard index + offset < end else { throw error(.unexpectedEnd, at: end) }
            guard bytes[index + offset] & 0xC0 == 0x80 else { throw error(.invalidUnicode, at: index) }
            offset += 1
        }
        index += length
    }

    // MARK: Numbers

    /// Validates a number against the RFC 8259 grammar and steps past it.
    private mutating func scanNumber() throws(JSONParseError) {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < end else { throw error(.unexpectedEnd, at: index) }
        let first = bytes[index]
        if first == UInt8(ascii: "0") {
            index += 1
            if index < end && isDigit(bytes[index]) { throw error(.invalidNumber, at: index) }
        } else if isDigit(first) {
            index += 1
            skipDigits()
        } else {
            throw error(.invalidNumber, at: index)
        }
        if index < end && bytes[index] == UInt8(ascii: ".") {
            index += 1
            try requireDigits()
        }
        if index < end && (bytes[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            if index < end && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            try requireDigits()
        }
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    @inline(__always)
    private mutating func skipDigits() {
        while index < end && isDigit(bytes[index]) { index += 1 }
    }

    private mutating func requireDigits() throws(JSONParseError) {
        guard index < end else { throw error(.unexpectedEnd, at: index) }
        guard isDigit(bytes[index]) else { throw error(.invalidNumber, at: index) }
        skipDigits()
    }

    // MARK: Errors

    /// Builds an error, working out the line and column of `offset` (only on the failure path).
    @inline(never)
    private func error(_ reason: JSONParseError.Reason, at offset: Int) -> JSONParseError {
        let target = min(max(offset, 0), end)
        var line = 1
        var column = 1
        var position = 0
        if allowsByteOrderMark && end >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF && target >= 3 {
            position = 3
        }
        while position < target {
            let byte = bytes[position]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte == 0x0D {
                if position + 1 < end && bytes[position + 1] == 0x0A {
                    // The LF that follows ends the line.
                } else {
                    line += 1
                    column = 1
                }
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            position += 1
        }
        return JSONParseError(offset: offset, line: line, column: column, reason: reason)
    }
}
